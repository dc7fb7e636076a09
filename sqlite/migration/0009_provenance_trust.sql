-- Provenance and trust signals on every chunk (issue 21, parts 3 and 4).
--
-- origin is the operation that wrote the chunk (store_memory,
-- remember_facts, import, bulk), caller who ran it (mcp, cli, library),
-- source what the caller said the content came from (a message ID, a URL,
-- a file), input_hash the SHA-256 of the text a fact was extracted from,
-- kept once in chunk_inputs. All NULL for chunks written before: their
-- provenance is unknown.
ALTER TABLE chunks ADD COLUMN origin TEXT;
ALTER TABLE chunks ADD COLUMN caller TEXT;
ALTER TABLE chunks ADD COLUMN source TEXT;
ALTER TABLE chunks ADD COLUMN input_hash TEXT;
-- Why the content reads as instructions to the agent (package trust);
-- NULL when it does not, or a person has trusted it.
ALTER TABLE chunks ADD COLUMN suspicious TEXT;

-- The texts facts were extracted from, once per agent and hash: twenty
-- facts from one text share one copy.
CREATE TABLE chunk_inputs (
    agent_id   TEXT NOT NULL,
    hash       TEXT NOT NULL,                    -- SHA-256 hex of text
    text       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, hash)
);

-- The chunks of an input, for the trigger below.
CREATE INDEX idx_chunks_input ON chunks(agent_id, input_hash) WHERE input_hash IS NOT NULL;

-- The review list (hippo chunks --suspicious).
CREATE INDEX idx_chunks_suspicious ON chunks(agent_id) WHERE suspicious IS NOT NULL;

-- An input goes with the last chunk that refers to it, however that chunk
-- goes (forget, delete, purge, consolidation): forgetting a fact forgets
-- the text it came from when nothing else uses it.
CREATE TRIGGER chunks_release_input AFTER DELETE ON chunks
WHEN old.input_hash IS NOT NULL BEGIN
    DELETE FROM chunk_inputs WHERE agent_id = old.agent_id AND hash = old.input_hash
        AND NOT EXISTS (SELECT 1 FROM chunks WHERE agent_id = old.agent_id AND input_hash = old.input_hash);
END;
