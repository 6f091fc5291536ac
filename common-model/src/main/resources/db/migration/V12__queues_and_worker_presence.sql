-- Carillon schema, version 12: queues (worker pools) and the workers' presence.
--
-- A task names the queue of workers that run it. Workers serve queues and claim only instances of
-- tasks in a queue they serve with a handler they have (LeaseStore.claimForRun joins the task).
-- Each worker keeps one presence row, refreshed every few seconds while it runs and deleted when it
-- stops; a row not refreshed for WorkerPresence.EXPIRY counts as gone. The retry service and
-- schedctl read the presence rows to tell an instance that waits for a worker (no live, ready
-- worker serves its queue with its handler) from one that is merely late, and the stranded scan
-- does not republish what nobody can run.

ALTER TABLE task_definition ADD COLUMN queue VARCHAR(64) NOT NULL DEFAULT 'default';

CREATE TABLE worker_presence (
    worker_id         VARCHAR(128)  NOT NULL PRIMARY KEY,
    ready             BOOLEAN       NOT NULL,
    free_slots        INTEGER       NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    last_seen         TIMESTAMP WITH TIME ZONE NOT NULL
);

-- What each worker serves: every (queue, handler) pair of its configured queues and its handlers.
CREATE TABLE worker_capability (
    worker_id         VARCHAR(128)  NOT NULL REFERENCES worker_presence (worker_id) ON DELETE CASCADE,
    queue             VARCHAR(64)   NOT NULL,
    handler           VARCHAR(128)  NOT NULL,
    CONSTRAINT pk_worker_capability PRIMARY KEY (worker_id, queue, handler)
);

CREATE INDEX ix_worker_capability_queue_handler ON worker_capability (queue, handler);
