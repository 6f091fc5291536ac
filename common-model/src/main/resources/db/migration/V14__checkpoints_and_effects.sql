-- Carillon schema, version 14: checkpoints and effects that survive attempts (issue 26).
--
-- An attempt's checkpoint (AgentContext.checkpoint) is one row per (instance, attempt): each save
-- replaces the attempt's previous one, so the table keeps every attempt's last checkpoint, and the
-- next attempt resumes from the row of the highest earlier attempt. An effect (AgentContext.once)
-- is one row per (instance, key, attempt) that started it; done_at is set when the effect returned
-- and its record was written. Every write to both tables is made in the statement or transaction
-- that also renews the instance's lease with "WHERE id = ? AND attempt = ? AND status = 'RUNNING'
-- AND worker_id = ?", so a fenced-out attempt writes nothing here (ResumeStore).
--
-- The rows belong to their instance: an archived instance takes them to the history tables
-- (ArchiveStore), and deleting an instance by hand deletes them. A re-run from scratch
-- (schedctl rerun --from-scratch) deletes them in the re-run's transaction.

CREATE TABLE instance_checkpoint (
    instance_id       BIGINT        NOT NULL REFERENCES task_instance (id) ON DELETE CASCADE,
    attempt           INTEGER       NOT NULL,
    state             TEXT          NOT NULL,
    saves             INTEGER       NOT NULL,
    worker_id         VARCHAR(128)  NOT NULL,
    saved_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    CONSTRAINT pk_instance_checkpoint PRIMARY KEY (instance_id, attempt)
);

CREATE TABLE instance_effect (
    instance_id       BIGINT        NOT NULL REFERENCES task_instance (id) ON DELETE CASCADE,
    effect_key        VARCHAR(128)  NOT NULL,
    attempt           INTEGER       NOT NULL,
    starts            INTEGER       NOT NULL,
    worker_id         VARCHAR(128)  NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    done_at           TIMESTAMP WITH TIME ZONE,
    result            TEXT,
    CONSTRAINT pk_instance_effect PRIMARY KEY (instance_id, effect_key, attempt)
);

CREATE TABLE instance_checkpoint_history (
    instance_id       BIGINT        NOT NULL,
    attempt           INTEGER       NOT NULL,
    state             TEXT          NOT NULL,
    saves             INTEGER       NOT NULL,
    worker_id         VARCHAR(128)  NOT NULL,
    saved_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    archived_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT pk_instance_checkpoint_history PRIMARY KEY (instance_id, attempt)
);

CREATE TABLE instance_effect_history (
    instance_id       BIGINT        NOT NULL,
    effect_key        VARCHAR(128)  NOT NULL,
    attempt           INTEGER       NOT NULL,
    starts            INTEGER       NOT NULL,
    worker_id         VARCHAR(128)  NOT NULL,
    started_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    done_at           TIMESTAMP WITH TIME ZONE,
    result            TEXT,
    archived_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT pk_instance_effect_history PRIMARY KEY (instance_id, effect_key, attempt)
);
