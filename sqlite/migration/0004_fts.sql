-- Full-text index of chunk content for hybrid recall: BM25 fused with
-- vector similarity (see fts.go).
--
-- Contentless (content = ''): the text lives in chunks only and the index
-- holds tokens and rowids. Triggers delete with the 'delete' command and the
-- old values, which lets FTS5 secure-delete take the tokens out of the index
-- pages at once. contentless_delete=1 was tried and rejected: it only
-- tombstones the rowid, and the deleted text stays in the file until its
-- segment is merged, so forgotten text would not be provably gone. External
-- content would work the same way but needs a view for the agent column.
--
-- Rows are keyed by the implicit rowid of chunks (its primary key is TEXT).
-- VACUUM may renumber such rowids, so Hippo never runs VACUUM; recall joins
-- back on rowid and agent_id, so a stale rowid can never return another
-- agent's chunk.
--
-- agent holds one token: 'a' || hex(agent_id) || '0'. Hex is alphanumeric,
-- so unicode61 keeps it one token, distinct for every agent; the trailing
-- digit keeps the porter stemmer off it. A recall ANDs its words with the
-- agent's token, so FTS5 ranks the agent's own rows only (see fts.go for
-- when it does not).
CREATE VIRTUAL TABLE chunks_fts USING fts5(
    content, agent,
    content = '',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Deleted text leaves the index pages when it is deleted, not at a merge.
INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('secure-delete', 1);
-- BM25 over the content only: the agent token weighs nothing.
INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('rank', 'bm25(1.0, 0.0)');

INSERT INTO chunks_fts (rowid, content, agent)
    SELECT rowid, content, 'a' || hex(agent_id) || '0' FROM chunks;

CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts (rowid, content, agent)
    VALUES (new.rowid, new.content, 'a' || hex(new.agent_id) || '0');
END;
CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, content, agent)
    VALUES ('delete', old.rowid, old.content, 'a' || hex(old.agent_id) || '0');
END;
CREATE TRIGGER chunks_fts_update AFTER UPDATE OF content, agent_id ON chunks BEGIN
    INSERT INTO chunks_fts (chunks_fts, rowid, content, agent)
    VALUES ('delete', old.rowid, old.content, 'a' || hex(old.agent_id) || '0');
    INSERT INTO chunks_fts (rowid, content, agent)
    VALUES (new.rowid, new.content, 'a' || hex(new.agent_id) || '0');
END;
