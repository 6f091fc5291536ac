-- Carillon schema, version 2: dependency, event and condition triggers.
--
-- The trigger settings of non-cron tasks live in task_definition.spec (JSON, unused until now) with
-- task_definition.trigger_kind naming the kind (CRON, DEPENDENCY, EVENT, CONDITION); cron is NULL
-- for them. Nothing here changes a V1 table's columns.

-- Named read positions of the trigger leader, e.g. 'dependency:events' = the highest
-- instance_event id whose completion has been handled. A new leader resumes from here.
CREATE TABLE trigger_offset (
    name              VARCHAR(64)   NOT NULL PRIMARY KEY,
    position          BIGINT        NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Per condition task, the debounce state of the current window: which poll slot was evaluated last
-- and how many consecutive polls held. Survives a leader failover, so a debounce in progress is
-- neither lost nor counted twice.
CREATE TABLE condition_state (
    task_id           VARCHAR(64)   NOT NULL PRIMARY KEY,
    window_key        VARCHAR(64)   NOT NULL,
    last_slot         TIMESTAMP WITH TIME ZONE NOT NULL,
    consecutive       INTEGER       NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

/* [jooq ignore start] */
-- The dependency releaser reads only the completions after its offset: events that finished an
-- instance (SUCCESS, DEAD, SKIPPED, CANCELLED), by primary key order.
CREATE INDEX ix_instance_event_finished ON instance_event (id)
    WHERE to_status IN ('SUCCESS', 'DEAD', 'SKIPPED', 'CANCELLED');
/* [jooq ignore stop] */
