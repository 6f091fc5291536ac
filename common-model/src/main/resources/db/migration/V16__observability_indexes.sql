-- Carillon schema, version 16: the indexes behind the operators' evidence.
--
-- ix_task_instance_success: a task's recent successful runs, newest first, for the observed
-- run-duration P99 behind `schedctl suggest-timeout` and the worker's warning about a timeout
-- below it (RunEvidenceStore). Without it that read walks every row of the task through the
-- window index. It costs one index entry per SUCCESS (the end write already adds one to
-- ix_task_instance_finished).
--
-- ix_task_instance_dead: the DEAD queue's size for the instance gauges the retry leader reads
-- every few seconds (InstanceStatsStore); DEAD rows are few, so the index is small, and counting
-- them no longer reads every finished row.

/* [jooq ignore start] */
CREATE INDEX ix_task_instance_success ON task_instance (task_id, finished_at)
    WHERE status = 'SUCCESS';
CREATE INDEX ix_task_instance_dead ON task_instance (task_id)
    WHERE status = 'DEAD';
/* [jooq ignore stop] */
