-- Carillon schema, version 3: room on trigger_cursor pages for in-place (HOT) updates.
--
-- A firing tick updates the cursor row of every task that fired (10,000 rows in one tick is a
-- normal day for a large install). With the default fillfactor of 100 the pages are full, so each
-- new row version goes to another page and PostgreSQL must also insert a new primary key entry for
-- it. With half of each page free, the new version stays on its page and no index is touched (a
-- HOT update): measured on PostgreSQL 15, 2,000 cursor upserts went from 17-19 ms to 11 ms, and
-- 99% of the updates were HOT. The table is small (one short row per task), so doubling its pages
-- costs little. Existing pages keep their layout until rows move or the table is rewritten
-- (VACUUM FULL trigger_cursor, at a quiet time); new pages get the room at once.

/* [jooq ignore start] */
ALTER TABLE trigger_cursor SET (fillfactor = 50);
/* [jooq ignore stop] */
