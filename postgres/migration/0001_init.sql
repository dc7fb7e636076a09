-- Hippo's schema on PostgreSQL: the same tables as SQLite's (sqlite/migration),
-- timestamps kept as the same fixed-width UTC text so that an export reads
-- the same from either store.

-- Facts and memories, one row each, per agent and scope.
CREATE TABLE chunks (
    rowid             bigint GENERATED ALWAYS AS IDENTITY UNIQUE, -- row key of the text search
    id                text COLLATE "C" PRIMARY KEY,          -- ULID
    agent_id          text COLLATE "C" NOT NULL,
    scope             text COLLATE "C" NOT NULL DEFAULT '',
    content           text COLLATE "C" NOT NULL,
    content_hash      text COLLATE "C",                      -- SHA-256 hex, for memory dedup
    embedding         bytea NOT NULL,            -- little-endian float32
    metadata          text COLLATE "C",                      -- JSON object, kept byte for byte
    kind              text COLLATE "C" NOT NULL CHECK (kind IN ('fact', 'memory')),
    running_intensity double precision NOT NULL DEFAULT 0.5,
    encounter_count   bigint NOT NULL DEFAULT 1,
    access_count      bigint NOT NULL DEFAULT 0,
    last_accessed_at  text COLLATE "C" NOT NULL,             -- 2006-01-02T15:04:05.000000Z
    superseded_by     text COLLATE "C",
    superseded_at     text COLLATE "C",
    created_at        text COLLATE "C" NOT NULL,
    -- Full-text postings of the content, and its length in words (stop
    -- words included, as FTS5 counts a row's tokens for BM25's length
    -- normalisation); set by chunks_fts below.
    fts               tsvector NOT NULL,
    words             integer NOT NULL
)
-- Room on each page for the new versions of rows a recall's boost
-- updates: a heap-only update, with no index entry written (no indexed
-- column changes), needs space on the row's own page.
WITH (fillfactor = 75);
-- A trigger rather than generated columns: PostgreSQL recomputes stored
-- generated columns on every update, and every recall's boost updates ten
-- rows without touching their content.
CREATE FUNCTION hippo_fts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.fts := to_tsvector('english'::regconfig, NEW.content);
    NEW.words := coalesce(array_length(regexp_split_to_array(
        btrim(regexp_replace(NEW.content, '[^[:alnum:]]+', ' ', 'g')), ' '), 1), 0);
    RETURN NEW;
END $$;
CREATE TRIGGER chunks_fts BEFORE INSERT OR UPDATE OF content ON chunks
    FOR EACH ROW EXECUTE FUNCTION hippo_fts();

-- Vectors are incompressible: keep them out of line, uncompressed.
ALTER TABLE chunks ALTER COLUMN embedding SET STORAGE EXTERNAL;

-- Memory dedup on the first 128 bits of the content hash (as SQLite's 0007).
CREATE UNIQUE INDEX idx_chunks_memory_dedup
    ON chunks (agent_id, scope, left(content_hash, 32)) WHERE kind = 'memory';
CREATE INDEX idx_chunks_agent_kind ON chunks (agent_id, kind);
CREATE INDEX idx_chunks_superseded ON chunks (superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX idx_chunks_fts ON chunks USING gin (fts);

CREATE TABLE memory_blocks (
    agent_id    text COLLATE "C" NOT NULL,
    scope       text COLLATE "C" NOT NULL DEFAULT '',
    key         text COLLATE "C" NOT NULL,
    value       text COLLATE "C" NOT NULL,
    description text COLLATE "C" NOT NULL DEFAULT '',
    updated_at  text COLLATE "C" NOT NULL,
    PRIMARY KEY (agent_id, scope, key)
);

-- Model lock, decay clock, the change feed's epoch and other settings.
CREATE TABLE hippo_meta (
    key   text COLLATE "C" PRIMARY KEY,
    value text COLLATE "C" NOT NULL
);
INSERT INTO hippo_meta (key, value) VALUES ('changes_epoch', '0');

-- Hours in which each agent used its memory (the active decay clock).
CREATE TABLE hippo_activity (
    agent_id text COLLATE "C" NOT NULL,
    hour     bigint NOT NULL,
    PRIMARY KEY (agent_id, hour)
);

-- The change feed. Every write transaction of an agent first takes the
-- agent's advisory lock (lockAgent), which serialises its writers across
-- servers; the triggers below bump the agent's version here once per
-- transaction that changes a chunk, under that lock and the row's, so
-- versions are gap-free and in commit order per agent. A reader whose
-- snapshot shows version v has seen every change up to v. A bigserial
-- would not do: transactions commit out of sequence order.
CREATE TABLE hippo_agents (
    agent_id text COLLATE "C" PRIMARY KEY,
    version  bigint NOT NULL
);

-- Chunk IDs changed at each version; only IDs, never content.
CREATE TABLE hippo_changes (
    agent_id text COLLATE "C" NOT NULL,
    version  bigint NOT NULL,
    chunk_id text COLLATE "C" NOT NULL
);
CREATE INDEX idx_changes_agent ON hippo_changes (agent_id, version);

-- hippo_log bumps the version of the agents of changed rows, unless this
-- transaction did already (the row's xmin is the transaction's), and logs
-- the rows at it. A bulk write across agents (hippo.bulk = on) logs
-- nothing and raises changes_epoch instead, which has every reader reload.
CREATE FUNCTION hippo_log(agents text[], ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('hippo.bulk', true), '') = 'on' OR cardinality(ids) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO hippo_agents AS h (agent_id, version)
        SELECT DISTINCT a, 1 FROM unnest(agents) AS a ORDER BY 1
        ON CONFLICT (agent_id) DO UPDATE SET version = h.version + 1
        WHERE h.xmin::text <> (pg_current_xact_id()::text::bigint % 4294967296)::text;
    INSERT INTO hippo_changes (agent_id, version, chunk_id)
        SELECT c.a, h.version, c.id FROM unnest(agents, ids) AS c (a, id)
        JOIN hippo_agents AS h ON h.agent_id = c.a;
END $$;

CREATE FUNCTION hippo_log_new() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM hippo_log((SELECT coalesce(array_agg(agent_id), '{}') FROM new_rows),
                      (SELECT coalesce(array_agg(id), '{}') FROM new_rows));
    RETURN NULL;
END $$;

CREATE FUNCTION hippo_log_old() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM hippo_log((SELECT coalesce(array_agg(agent_id), '{}') FROM old_rows),
                      (SELECT coalesce(array_agg(id), '{}') FROM old_rows));
    RETURN NULL;
END $$;

-- The WHEN spares a bulk write, and a boost (which logs itself), the
-- function call.
CREATE TRIGGER chunks_log_insert AFTER INSERT ON chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    WHEN (current_setting('hippo.bulk', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION hippo_log_new();
CREATE TRIGGER chunks_log_update AFTER UPDATE ON chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
    WHEN (current_setting('hippo.bulk', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION hippo_log_new();
CREATE TRIGGER chunks_log_delete AFTER DELETE ON chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
    WHEN (current_setting('hippo.bulk', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION hippo_log_old();

-- Metadata as JSON for the browse filters, NULL when it is not valid
-- JSON (an old import may hold anything): a cast would fail the query.
CREATE FUNCTION hippo_json(t text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN t::jsonb;
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$;

-- The shadow vectors of a re-embedding in progress.
CREATE TABLE hippo_reembed (
    id        text COLLATE "C" PRIMARY KEY,
    embedding bytea NOT NULL
);
ALTER TABLE hippo_reembed ALTER COLUMN embedding SET STORAGE EXTERNAL;

-- A shadow vector is only good for the content it was made from.
CREATE FUNCTION hippo_reembed_drop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM hippo_reembed WHERE id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_reembed_content AFTER UPDATE OF content ON chunks
    FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION hippo_reembed_drop();
CREATE TRIGGER chunks_reembed_delete AFTER DELETE ON chunks
    FOR EACH ROW EXECUTE FUNCTION hippo_reembed_drop();
