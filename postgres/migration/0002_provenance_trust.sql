-- Provenance and trust signals on every chunk (as SQLite's 0009).
--
-- origin is the operation that wrote the chunk (store_memory,
-- remember_facts, import, bulk), caller who ran it (mcp, cli, library),
-- source what the caller said the content came from, input_hash the
-- SHA-256 of the text a fact was extracted from, kept once in
-- chunk_inputs; suspicious why the content reads as instructions to the
-- agent, NULL when it does not or a person trusted it.
ALTER TABLE chunks ADD COLUMN origin text COLLATE "C";
ALTER TABLE chunks ADD COLUMN caller text COLLATE "C";
ALTER TABLE chunks ADD COLUMN source text COLLATE "C";
ALTER TABLE chunks ADD COLUMN input_hash text COLLATE "C";
ALTER TABLE chunks ADD COLUMN suspicious text COLLATE "C";

-- The texts facts were extracted from, once per agent and hash.
CREATE TABLE chunk_inputs (
    agent_id   text COLLATE "C" NOT NULL,
    hash       text COLLATE "C" NOT NULL,    -- SHA-256 hex of text
    text       text COLLATE "C" NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    PRIMARY KEY (agent_id, hash)
);

CREATE INDEX idx_chunks_input ON chunks (agent_id, input_hash) WHERE input_hash IS NOT NULL;
CREATE INDEX idx_chunks_suspicious ON chunks (agent_id) WHERE suspicious IS NOT NULL;

-- An input goes with the last chunk that refers to it, however that chunk
-- goes (forget, delete, purge, consolidation).
CREATE FUNCTION hippo_release_input() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM chunk_inputs WHERE agent_id = OLD.agent_id AND hash = OLD.input_hash
        AND NOT EXISTS (SELECT 1 FROM chunks WHERE agent_id = OLD.agent_id AND input_hash = OLD.input_hash);
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_release_input AFTER DELETE ON chunks
    FOR EACH ROW WHEN (OLD.input_hash IS NOT NULL) EXECUTE FUNCTION hippo_release_input();
