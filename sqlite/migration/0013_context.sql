-- The memory a follow-up was read after (hippo.Chunk.ContextOf): the last
-- of the follow-up's parts is its vector read after that memory's text,
-- NULL for none. The part derives from that memory's text, so it goes
-- when that memory is deleted (forget, delete, purge, consolidation) or
-- its content changes: the follower keeps its other parts (all but the
-- last vector, each as long as the embedding) and no link.
ALTER TABLE chunks ADD COLUMN context_of TEXT;

CREATE INDEX idx_chunks_context ON chunks(context_of) WHERE context_of IS NOT NULL;

CREATE TRIGGER chunks_context_delete AFTER DELETE ON chunks BEGIN
    UPDATE chunks SET context_of = NULL,
        parts = CASE WHEN length(parts) > length(embedding) THEN substr(parts, 1, length(parts) - length(embedding)) END
    WHERE context_of = old.id;
END;
CREATE TRIGGER chunks_context_edit AFTER UPDATE OF content ON chunks
WHEN old.content IS NOT new.content BEGIN
    UPDATE chunks SET context_of = NULL,
        parts = CASE WHEN length(parts) > length(embedding) THEN substr(parts, 1, length(parts) - length(embedding)) END
    WHERE context_of = new.id;
END;
