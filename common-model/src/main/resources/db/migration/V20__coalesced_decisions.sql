-- Carillon schema, version 20: a decision repeated about one window is one row with a count.
--
-- The trigger logs a DECISION event for every fire time that created nothing: "window exists,
-- status SUCCESS" on every fire of a DAILY task with a 10-second cron (8,640 rows a day for one
-- task), "task paused" on every fire of a paused task whose window is coarser than its cron, and
-- the dependency and condition triggers' "waiting for ..." on every poll. Written one row each,
-- they grew the event log (and the archive after it) without telling anything new.
--
-- A decision identical to the latest event of its window (same kind DECISION, actor, instance and
-- reason) now adds to that row instead: repeats counts the decisions it stands for (1 for every
-- row that was never repeated, and for every other kind of event), created_at stays the first
-- time, last_at is the latest (NULL until the row is repeated). A different decision, or any
-- transition in between, starts a new row, so `schedctl why` still tells every change in order.
-- The history table gets the same columns: archiving copies every live column by name.

ALTER TABLE instance_event ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1;
ALTER TABLE instance_event ADD COLUMN last_at TIMESTAMP WITH TIME ZONE;

ALTER TABLE instance_event_history ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1;
ALTER TABLE instance_event_history ADD COLUMN last_at TIMESTAMP WITH TIME ZONE;
