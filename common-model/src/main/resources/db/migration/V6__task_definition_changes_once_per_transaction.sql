-- Carillon schema, version 6: the task definition counter (V5) moves once per transaction.
--
-- V5 moved it in every statement. TaskStore.applyAll writes one upsert per definition in one
-- transaction, so applying 20,000 definitions updated the one counter row 20,000-40,000 times
-- inside a single transaction. None of those row versions can be pruned before the commit, and
-- each update walks the chain of the ones before it: the apply went from ~2 s to ~6 s in the
-- bench. The counter now records which transaction moved it last and moves only for another one.
-- What the cache needs is unchanged: every committed transaction that changed definitions moves
-- it. The lock order is unchanged too: the first changing statement of a transaction still locks
-- the counter row before any definition row, and holds it until the commit.

ALTER TABLE task_definition_change ADD COLUMN changed_by BIGINT;

/* [jooq ignore start] */
CREATE OR REPLACE FUNCTION count_task_definition_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- txid_current() is 64 bits with the epoch, so never reused. A second statement of the same
    -- transaction matches no row and writes nothing.
    UPDATE task_definition_change SET changes = changes + 1, changed_by = txid_current()
     WHERE id = 1 AND changed_by IS DISTINCT FROM txid_current();
    RETURN NULL; -- ignored for statement triggers
END
$$;
/* [jooq ignore stop] */
