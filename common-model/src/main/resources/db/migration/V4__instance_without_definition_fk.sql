-- Carillon schema, version 4: task_instance.task_id no longer references task_definition.
--
-- The foreign key checked every inserted instance row with a FOR KEY SHARE lock on its task's
-- definition row, and a row lock writes to that row's page and to the WAL. In the issue-9 burst
-- (20,000 instances of 20,000 tasks in one tick) the instance inserts took 800 ms of statement time
-- with it and 476 ms without, and PostgreSQL's CPU per burst fell by about 15 %.
--
-- What the key protected cannot happen through Carillon: instances are only inserted by the
-- trigger, for definitions it has just read, and nothing in Carillon deletes a definition (a task
-- is paused, never removed, so its history keeps its meaning). A definition deleted by hand in SQL
-- now leaves its instances in place instead of failing: the trigger creates no new ones, and a
-- worker that claims one ends the attempt as a failure that says the task has no valid definition
-- (RunPool, as for a definition edited into an invalid state).

/* [jooq ignore start] */
ALTER TABLE task_instance DROP CONSTRAINT IF EXISTS task_instance_task_id_fkey;
/* [jooq ignore stop] */
