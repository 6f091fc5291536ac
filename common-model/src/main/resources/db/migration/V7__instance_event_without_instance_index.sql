-- Carillon schema, version 7: instance_event loses its index on instance_id.
--
-- Every run writes three events (created, claimed, ended), and every event paid for three index
-- entries: the key, the window and the instance. In the issue-9 burst (20,000 instances in about
-- 1.4 s) dropping the instance index took about 5 % off PostgreSQL's CPU per burst (1.66-1.68 s
-- to 1.49-1.65 s, 4 bursts each). The reads that used it go through the window index instead: the
-- events of an instance are those of its window with its id (InstanceStore.events), and the
-- archiver finds the events of the instances it moves the same way (ArchiveStore).

DROP INDEX IF EXISTS ix_instance_event_instance;
