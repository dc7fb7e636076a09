-- The part vectors of a memory (as SQLite's 0012), NULL for none.
ALTER TABLE chunks ADD COLUMN parts bytea;
