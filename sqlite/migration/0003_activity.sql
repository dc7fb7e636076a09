-- Hours in which each agent used its memory, for the optional active-time
-- decay clock: memories do not fade while their agent is idle.
CREATE TABLE hippo_activity (
    agent_id TEXT NOT NULL,
    hour     INTEGER NOT NULL, -- unix time / 3600
    PRIMARY KEY (agent_id, hour)
) WITHOUT ROWID;
