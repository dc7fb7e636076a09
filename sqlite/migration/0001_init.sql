-- Facts and memories, one row each, per agent and scope.
CREATE TABLE chunks (
    id                TEXT PRIMARY KEY,          -- ULID
    agent_id          TEXT NOT NULL,
    scope             TEXT NOT NULL DEFAULT '',
    content           TEXT NOT NULL,
    content_hash      TEXT,                      -- SHA-256 hex, for memory dedup
    embedding         BLOB NOT NULL,             -- little-endian float32
    metadata          TEXT,                      -- JSON object: source, tags, category
    kind              TEXT NOT NULL CHECK (kind IN ('fact', 'memory')),
    running_intensity REAL NOT NULL DEFAULT 0.5,
    encounter_count   INTEGER NOT NULL DEFAULT 1,
    access_count      INTEGER NOT NULL DEFAULT 0,
    last_accessed_at  TEXT NOT NULL,             -- ISO 8601 UTC
    superseded_by     TEXT,                      -- replacement chunk id
    superseded_at     TEXT,                      -- when it stopped being current
    created_at        TEXT NOT NULL
);

-- Memory dedup: verbatim content per agent and scope (facts use similarity).
CREATE UNIQUE INDEX idx_chunks_memory_dedup
    ON chunks(agent_id, scope, content_hash) WHERE kind = 'memory';

-- Query filters.
CREATE INDEX idx_chunks_agent_kind ON chunks(agent_id, kind);
CREATE INDEX idx_chunks_last_accessed ON chunks(agent_id, last_accessed_at);

-- Supersession exclusion (partial: only non-null rows).
CREATE INDEX idx_chunks_superseded
    ON chunks(superseded_by) WHERE superseded_by IS NOT NULL;

CREATE TABLE memory_blocks (
    agent_id   TEXT NOT NULL,
    scope      TEXT NOT NULL DEFAULT '',
    key        TEXT NOT NULL,                    -- 'persona', 'human', 'objectives'
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, scope, key)
);

-- Embedding model lock and other database-wide settings.
CREATE TABLE hippo_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
