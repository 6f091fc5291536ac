-- Carillon schema, version 21: finished instances by task, newest first (issue 19).
--
-- The console's tasks page and the API's task list show how each listed task's last run ended
-- (OperatorStore.lastFinished). Without an index on (task_id, finished_at) over every finished
-- status, that read sorted all finished rows of the listed tasks: every run they ever had, since
-- ix_task_instance_success holds only SUCCESS and ix_task_instance_dead only DEAD. The index below
-- holds the four finished statuses, so a task's last finish is one descent from its end.
--
-- It replaces ix_task_instance_success (V16), whose reader (RunEvidenceStore: a task's recent
-- successful runs, newest first) it serves as well: status = 'SUCCESS' implies the predicate
-- below, and the few non-SUCCESS rows among a task's newest are filtered out on the way. So an end
-- write still adds one entry here, as it did to the index it replaces; DEAD, SKIPPED and CANCELLED
-- rows add one that they did not before. The statuses are InstanceStatus.FINISHED, named as
-- literals by the queries (Sql.statusIn) so that even a generic plan can use the index.

/* [jooq ignore start] */
DROP INDEX IF EXISTS ix_task_instance_success;
CREATE INDEX ix_task_instance_ended ON task_instance (task_id, finished_at)
    WHERE status IN ('SUCCESS', 'DEAD', 'SKIPPED', 'CANCELLED');
/* [jooq ignore stop] */
