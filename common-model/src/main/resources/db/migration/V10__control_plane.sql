-- Carillon schema, version 10: what the control-plane API (issue 17) needs.
--
-- 1. Soft delete of tasks. A deleted task keeps its row (deleted_at set, version moved), so its
--    instances and their events keep their meaning and stay queryable; the trigger no longer loads
--    it (TriggerQueries and TaskStore read only rows with deleted_at IS NULL), so it never fires
--    again. Applying the same id later revives it with a new version.
-- 2. task_event: the history of task definitions (created, changed, revived, paused, resumed,
--    deleted) with the actor, as instance_event is for instances. Its own table rather than rows
--    in instance_event: every reader of instance_event (the dependency releaser, the archiver,
--    why) reads it by window, and a task change belongs to no window.
-- 3. An index for the API's instance lists, newest scheduled first with keyset pagination on
--    (scheduled_at, id). Without it every page of an unfiltered list sorts the whole table. It
--    costs one more index entry per instance insert and per status change (status changes are
--    not HOT updates anyway, as status is in the partial indexes' predicates); the bench measures
--    the API's lists against the fire lag.

ALTER TABLE task_definition ADD COLUMN deleted_at TIMESTAMP WITH TIME ZONE;

CREATE TABLE task_event (
    id                BIGSERIAL     NOT NULL PRIMARY KEY,
    task_id           VARCHAR(64)   NOT NULL,
    kind              VARCHAR(16)   NOT NULL,
    version           BIGINT        NOT NULL,
    actor             VARCHAR(128)  NOT NULL,
    reason            TEXT,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX ix_task_event_task ON task_event (task_id, id);

CREATE INDEX ix_task_instance_scheduled ON task_instance (scheduled_at, id);
