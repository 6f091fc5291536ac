-- Carillon schema, version 5: a counter of the statements that changed task_definition.
--
-- The trigger's loops (tick, dependency releaser, event consumer, condition poller) each ask
-- several times a second whether any definition changed. They used count(*) and the sum of every
-- row's xmin, a scan of the whole table: with 20,000 tasks 11 ms a call and ~150 ms of PostgreSQL
-- time inside a 2 s burst. They now read one row here. A database trigger keeps it, so a change
-- made by hand in SQL moves it as well as one made through Carillon; it counts statements, not
-- rows, so a statement that changed nothing may move it too (the cache then finds nothing to
-- reload). The counter row is updated in the changing transaction and becomes visible with it.
-- The trigger runs BEFORE each statement, so a transaction that changes definitions locks the
-- counter row before any definition row: two such transactions queue on it (one apply waits for
-- another) instead of each holding a row the other needs and deadlocking.

CREATE TABLE task_definition_change (
    id                INTEGER       NOT NULL PRIMARY KEY,
    changes           BIGINT        NOT NULL
);

INSERT INTO task_definition_change (id, changes) VALUES (1, 0);

/* [jooq ignore start] */
ALTER TABLE task_definition_change ADD CONSTRAINT ck_task_definition_change_one_row CHECK (id = 1);

CREATE FUNCTION count_task_definition_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE task_definition_change SET changes = changes + 1 WHERE id = 1;
    RETURN NULL; -- ignored for statement triggers
END
$$;

CREATE TRIGGER task_definition_changed
    BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON task_definition
    FOR EACH STATEMENT EXECUTE FUNCTION count_task_definition_change();
/* [jooq ignore stop] */
