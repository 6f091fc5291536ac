-- Carillon schema, version 18: what the web console's overview reads (issue 19).
--
-- 1. retry_scan: the retry service's last scan pass, one row per retry instance, replaced after
--    every pass (one single-row upsert per pass, beside the pass's own statements). The API runs in
--    the trigger process, apart from the retry service, so it cannot ask the retry service; the
--    database is what both reach. A row whose finished_at is old says the scanner stopped.
-- 2. An index of DEAD instances by task: the overview's DEAD count and the dead-letter groups read
--    only DEAD rows, and no other index says which rows are DEAD (ix_task_instance_finished covers
--    SUCCESS too, so counting DEAD through it visits every finished row). Only DEAD rows are in it,
--    so it costs a write only when an instance becomes DEAD or is re-run from DEAD.

CREATE TABLE retry_scan (
    holder            VARCHAR(128)  NOT NULL PRIMARY KEY,
    leader            BOOLEAN       NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at       TIMESTAMP WITH TIME ZONE NOT NULL,
    complete          BOOLEAN       NOT NULL,
    timed_out         INTEGER       NOT NULL,
    retried           INTEGER       NOT NULL,
    dead              INTEGER       NOT NULL,
    promoted          INTEGER       NOT NULL,
    republished       INTEGER       NOT NULL,
    held_back         INTEGER       NOT NULL,
    archived          INTEGER       NOT NULL
);

/* [jooq ignore start] */
-- V16 made ix_task_instance_dead on (task_id) alone for the DEAD gauges; the dead-letter groups
-- also order by finished_at, and this index serves both, so it replaces V16's under its name.
DROP INDEX IF EXISTS ix_task_instance_dead;
CREATE INDEX ix_task_instance_dead ON task_instance (task_id, finished_at) WHERE status = 'DEAD';
/* [jooq ignore stop] */
