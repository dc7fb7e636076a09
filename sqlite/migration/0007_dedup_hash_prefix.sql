-- Memory dedup keys on the first 32 hex characters of the content hash
-- (128 bits) rather than all 64: after the vectors, this index was the
-- largest part of a chunk on disk (about 100 bytes of the 1536-dimension
-- chunk's 6,900). Lookups compare the whole hash as well; two contents
-- whose SHA-256 share 128 bits would be refused as duplicates, as likely
-- as two random UUIDs colliding. substr() keeps the schema usable by any
-- SQLite build: unhex() of the whole hash, the same size, needs 3.41, and
-- some systems' sqlite3 shell is older (Debian 12's is 3.40).
DROP INDEX IF EXISTS idx_chunks_memory_dedup;
CREATE UNIQUE INDEX idx_chunks_memory_dedup
    ON chunks(agent_id, scope, substr(content_hash, 1, 32)) WHERE kind = 'memory';
