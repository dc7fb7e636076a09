-- Texts given to remember_facts with async (as SQLite's 0010): kept until
-- the learning of their facts commits, in the same transaction that
-- deletes the row. text_hash is the text's SHA-256 hex, which forget
-- matches.
CREATE TABLE remember_pending (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    agent_id   text COLLATE "C" NOT NULL,
    scope      text COLLATE "C" NOT NULL,
    text       text COLLATE "C" NOT NULL,
    text_hash  text COLLATE "C" NOT NULL,
    source     text COLLATE "C",
    caller     text COLLATE "C",
    created_at text COLLATE "C" NOT NULL
);
CREATE INDEX idx_remember_pending_agent ON remember_pending (agent_id, id);
CREATE INDEX idx_remember_pending_hash ON remember_pending (agent_id, text_hash);
