-- Carillon schema, version 11: leader fencing, quarantined rows and the DEAD-alert outbox.

-- One row per leader-elected service ('trigger', 'retry'): the epoch of its current leader.
-- A new leader bumps it as its term begins; every write only a leader may make is applied only
-- while the epoch is still the writer's, checked in the same statement (Sql.fenced), so a leader
-- deposed while frozen writes nothing after it resumes.
CREATE TABLE leader_epoch (
    service           VARCHAR(32)   NOT NULL PRIMARY KEY,
    epoch             BIGINT        NOT NULL,
    holder            VARCHAR(128)  NOT NULL,
    since             TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- When the DEAD alert of an instance was acknowledged by the alert webhook (or, without a
-- webhook, reported by the log line that is then the only channel). NULL on a DEAD row means
-- "still to send": the retry leader sends those until the webhook answers 2xx.
ALTER TABLE task_instance ADD COLUMN alerted_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE task_instance_history ADD COLUMN alerted_at TIMESTAMP WITH TIME ZONE;

-- When a scanner set a row aside because handling it failed in a way a retry cannot fix (it
-- cannot be decided, or deciding it throws); the event log holds why. Such a row stays out of
-- every scan batch until an operator clears the mark.
ALTER TABLE task_instance ADD COLUMN quarantined_at TIMESTAMP WITH TIME ZONE;
ALTER TABLE task_instance_history ADD COLUMN quarantined_at TIMESTAMP WITH TIME ZONE;

-- DEAD rows from before this version were alerted by the in-memory alerter, or lost with it;
-- either way they are not news now.
UPDATE task_instance SET alerted_at = COALESCE(finished_at, updated_at) WHERE status = 'DEAD';
UPDATE task_instance_history SET alerted_at = COALESCE(finished_at, updated_at) WHERE status = 'DEAD';

/* [jooq ignore start] */
-- The outbox: DEAD rows whose alert is still to send, oldest first.
CREATE INDEX ix_task_instance_dead_unalerted ON task_instance (finished_at, id)
    WHERE status = 'DEAD' AND alerted_at IS NULL;

-- The decision scan reads only rows not set aside, so a quarantined row never fills its batch.
DROP INDEX IF EXISTS ix_task_instance_failed;
CREATE INDEX ix_task_instance_failed ON task_instance (updated_at)
    WHERE status IN ('FAILED', 'TIMEOUT') AND quarantined_at IS NULL;
/* [jooq ignore stop] */
