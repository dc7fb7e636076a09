-- The memory a follow-up was read after (as SQLite's 0013): the
-- follower's last part goes, with the link, when that memory is deleted or
-- its content changes, and so does the follower's shadow vector of a
-- re-embedding in progress (read after that memory too).
ALTER TABLE chunks ADD COLUMN context_of text;

CREATE INDEX idx_chunks_context ON chunks (context_of) WHERE context_of IS NOT NULL;

CREATE FUNCTION hippo_drop_context() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM hippo_reembed WHERE id IN (SELECT id FROM chunks WHERE context_of = OLD.id);
    UPDATE chunks SET context_of = NULL,
        parts = CASE WHEN length(parts) > length(embedding) THEN substr(parts, 1, length(parts) - length(embedding)) END
    WHERE context_of = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER chunks_context_delete AFTER DELETE ON chunks
    FOR EACH ROW EXECUTE FUNCTION hippo_drop_context();
CREATE TRIGGER chunks_context_edit AFTER UPDATE OF content ON chunks
    FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION hippo_drop_context();
