-- What stated a fact learned by remember_facts (as SQLite's 0011): caller
-- (given by the caller), offline (the offline extractor's rules) or llm;
-- NULL for content stored as given and for facts learned before it was
-- recorded.
ALTER TABLE chunks ADD COLUMN extractor text COLLATE "C";
