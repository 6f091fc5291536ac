-- Carillon schema, version 22: a task's instances by time, and the dead letters from their index
-- (issue 24, item 3: a month of history, docs/benchmarks.md "A month of history").
--
-- A task's page of instances (GET /instances?task=..., `schedctl get instances --task`, the
-- console's task page) is newest scheduled first. No index led with task_id and ordered by time,
-- so the read fetched every row the task ever had through uq_task_instance_window and sorted them:
-- with 30 days of a million instances a day over 10,000 tasks, 3,000 rows on 3,000 heap pages for
-- a page of 50, p95 436 ms. The index below hands them over in order, so a page reads its 50 rows.
-- It costs every instance one more index entry when it is created (its columns never change).
--
-- The dead-letter groups (OverviewQueries.deadGroups) read task, reason, finish and id of every
-- DEAD row; ix_task_instance_dead held task and finish only, so each row was fetched from the heap:
-- 30,000 DEAD rows, p95 168 ms. With the reason and id included the groups are read from the index
-- alone (for pages the visibility map marks all-visible). It holds DEAD rows only, as before.
--
-- On a large table an operator may build both beforehand with CREATE INDEX CONCURRENTLY under the
-- same names and definitions, so that this migration does not block writes while it builds them:
-- IF NOT EXISTS then leaves them alone (the dead index under its new name, see below).
/* [jooq ignore start] */
CREATE INDEX IF NOT EXISTS ix_task_instance_task_scheduled
    ON task_instance (task_id, scheduled_at, id);
CREATE INDEX IF NOT EXISTS ix_task_instance_dead_reason
    ON task_instance (task_id, finished_at) INCLUDE (fail_reason, id) WHERE status = 'DEAD';
DROP INDEX IF EXISTS ix_task_instance_dead;
/* [jooq ignore stop] */
