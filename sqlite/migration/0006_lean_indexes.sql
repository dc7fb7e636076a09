-- Two indexes every recall paid for and no query reads.
--
-- Seed 000's idx_chunks_last_accessed served the reference's scan cap (the
-- 10,000 most recently accessed chunks). Hippo scans every chunk from its
-- in-memory index instead, so nothing selects or orders chunks by last
-- access; yet each recall's retrieval boost moved ten of its entries, and
-- it held about 60 bytes per chunk.
DROP INDEX IF EXISTS idx_chunks_last_accessed;

-- The change log is read from a sequence number onwards, a range of its
-- primary key that holds only the few entries since the reader's last
-- sync; the agent is checked on those rows.
DROP INDEX IF EXISTS idx_changes_agent;
