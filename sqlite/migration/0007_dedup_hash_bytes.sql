-- Memory dedup keys on the hash's 32 bytes rather than its 64 hex
-- characters: after the vectors, this index was the largest part of a
-- chunk on disk (about 100 bytes of the 1536-dimension chunk's 6,900).
-- Hippo writes content_hash as lowercase SHA-256 hex and import recomputes
-- it for memories, so unhex() is never NULL for a memory it wrote.
DROP INDEX IF EXISTS idx_chunks_memory_dedup;
CREATE UNIQUE INDEX idx_chunks_memory_dedup
    ON chunks(agent_id, scope, unhex(content_hash)) WHERE kind = 'memory';
