-- Carillon schema, version 8: the overlap check's index holds only live instances.
--
-- ix_task_instance_task_status indexed (task_id, status) for every instance, so every status change
-- of every instance (three per run) added an entry to it, finished ones included, although its one
-- reader, the trigger's check for a task's live instances (TriggerQueries.liveInstances), wants
-- only live ones. The partial index below gets an entry when a row is created live or changes
-- between live statuses, none when it finishes, and it stays as small as the live set. The
-- statuses are InstanceStatus.LIVE; the query names them as literals so that even a generic plan
-- can use it. Reads by task of all statuses (schedctl) use uq_task_instance_window's task_id
-- prefix.

DROP INDEX IF EXISTS ix_task_instance_task_status;

/* [jooq ignore start] */
CREATE INDEX ix_task_instance_live ON task_instance (task_id)
    WHERE status IN ('PENDING', 'RUNNING', 'RETRY_WAIT', 'FAILED', 'TIMEOUT');
/* [jooq ignore stop] */
