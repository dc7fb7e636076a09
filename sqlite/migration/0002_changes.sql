-- Change log of chunk writes, so every process can fold other processes'
-- writes into its in-memory vector index before it searches. Only IDs are
-- logged, never content. Old entries are pruned; hippo_meta
-- 'changes_floor' records below which sequence numbers are gone.
CREATE TABLE hippo_changes (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    agent_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL
);
CREATE INDEX idx_changes_agent ON hippo_changes(agent_id, seq);

CREATE TRIGGER chunks_log_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO hippo_changes (agent_id, chunk_id) VALUES (new.agent_id, new.id);
END;
CREATE TRIGGER chunks_log_update AFTER UPDATE ON chunks BEGIN
    INSERT INTO hippo_changes (agent_id, chunk_id) VALUES (new.agent_id, new.id);
END;
CREATE TRIGGER chunks_log_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO hippo_changes (agent_id, chunk_id) VALUES (old.agent_id, old.id);
END;
