-- Texts given to remember_facts with async: kept here until the learning
-- of their facts commits, in the same transaction that deletes the row,
-- so that a crash loses none and none is learned twice. text_hash is the
-- text's SHA-256 hex, which forget matches.
CREATE TABLE remember_pending (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id   TEXT NOT NULL,
    scope      TEXT NOT NULL,
    text       TEXT NOT NULL,
    text_hash  TEXT NOT NULL,
    source     TEXT,
    caller     TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX idx_remember_pending_agent ON remember_pending(agent_id, id);
CREATE INDEX idx_remember_pending_hash ON remember_pending(agent_id, text_hash);
