-- Carillon schema, version 1.
--
-- All timestamps are timestamptz and are written in UTC. Durations are stored as whole
-- milliseconds in *_ms columns. Columns that carry a key or an index are VARCHAR(n): the jOOQ
-- code generator replays this file offline and needs bounded types there.
-- Statements that the offline replay cannot express (partial indexes, CHECK constraints with
-- PostgreSQL-only syntax) sit between "[jooq ignore start]" and "[jooq ignore stop]".

CREATE TABLE task_definition (
    task_id           VARCHAR(64)   NOT NULL PRIMARY KEY,
    handler           VARCHAR(128)  NOT NULL,
    trigger_kind      VARCHAR(16)   NOT NULL DEFAULT 'CRON',
    cron              VARCHAR(256),
    zone              VARCHAR(64),
    window_kind       VARCHAR(16),
    overlap_policy    VARCHAR(16)   NOT NULL DEFAULT 'SKIP',
    catchup_ms        BIGINT        NOT NULL,
    timeout_ms        BIGINT        NOT NULL,
    retry_policy      TEXT          NOT NULL,
    params            TEXT          NOT NULL DEFAULT '{}',
    spec              TEXT,
    paused            BOOLEAN       NOT NULL DEFAULT FALSE,
    version           BIGINT        NOT NULL DEFAULT 1,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE task_instance (
    id                BIGSERIAL     NOT NULL PRIMARY KEY,
    task_id           VARCHAR(64)   NOT NULL REFERENCES task_definition (task_id),
    window_key        VARCHAR(64)   NOT NULL,
    window_start      TIMESTAMP WITH TIME ZONE NOT NULL,
    window_end        TIMESTAMP WITH TIME ZONE NOT NULL,
    scheduled_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    status            VARCHAR(16)   NOT NULL,
    attempt           INTEGER       NOT NULL DEFAULT 0,
    retry_count       INTEGER       NOT NULL DEFAULT 0,
    max_retry         INTEGER       NOT NULL DEFAULT 0,
    next_attempt_at   TIMESTAMP WITH TIME ZONE,
    lease_until       TIMESTAMP WITH TIME ZONE,
    timeout_ms        BIGINT        NOT NULL,
    worker_id         VARCHAR(128),
    origin            VARCHAR(16)   NOT NULL,
    non_retryable     BOOLEAN       NOT NULL DEFAULT FALSE,
    policy_version    BIGINT,
    result_summary    TEXT,
    result_truncated  BOOLEAN       NOT NULL DEFAULT FALSE,
    result_uri        TEXT,
    fail_reason       VARCHAR(512),
    started_at        TIMESTAMP WITH TIME ZONE,
    finished_at       TIMESTAMP WITH TIME ZONE,
    dispatched_at     TIMESTAMP WITH TIME ZONE,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT uq_task_instance_window UNIQUE (task_id, window_key)
);

-- Overlap checks look for the live instances of one task.
CREATE INDEX ix_task_instance_task_status ON task_instance (task_id, status);

/* [jooq ignore start] */
-- One partial index per scanner, so each scan reads only the rows it may act on.
CREATE INDEX ix_task_instance_running_lease ON task_instance (lease_until) WHERE status = 'RUNNING';
CREATE INDEX ix_task_instance_retry_due ON task_instance (next_attempt_at) WHERE status = 'RETRY_WAIT';
CREATE INDEX ix_task_instance_failed ON task_instance (updated_at) WHERE status IN ('FAILED', 'TIMEOUT');
CREATE INDEX ix_task_instance_pending_dispatch ON task_instance (dispatched_at NULLS FIRST, id) WHERE status = 'PENDING';
CREATE INDEX ix_task_instance_finished ON task_instance (finished_at) WHERE status IN ('SUCCESS', 'DEAD', 'SKIPPED', 'CANCELLED');
/* [jooq ignore stop] */

-- Append-only: every transition and every trigger decision, including skips and their reason.
CREATE TABLE instance_event (
    id                BIGSERIAL     NOT NULL PRIMARY KEY,
    instance_id       BIGINT,
    task_id           VARCHAR(64)   NOT NULL,
    window_key        VARCHAR(64),
    kind              VARCHAR(16)   NOT NULL,
    from_status       VARCHAR(16),
    to_status         VARCHAR(16),
    attempt           INTEGER,
    actor             VARCHAR(128)  NOT NULL,
    reason            TEXT,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX ix_instance_event_instance ON instance_event (instance_id);
CREATE INDEX ix_instance_event_window ON instance_event (task_id, window_key);

-- Per task, the instant up to which fire times have been evaluated: a new leader resumes here.
CREATE TABLE trigger_cursor (
    task_id           VARCHAR(64)   NOT NULL PRIMARY KEY,
    evaluated_until   TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Archive of finished instances older than the retention, with their events.
CREATE TABLE task_instance_history (
    id                BIGINT        NOT NULL PRIMARY KEY,
    task_id           VARCHAR(64)   NOT NULL,
    window_key        VARCHAR(64)   NOT NULL,
    window_start      TIMESTAMP WITH TIME ZONE NOT NULL,
    window_end        TIMESTAMP WITH TIME ZONE NOT NULL,
    scheduled_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    status            VARCHAR(16)   NOT NULL,
    attempt           INTEGER       NOT NULL,
    retry_count       INTEGER       NOT NULL,
    max_retry         INTEGER       NOT NULL,
    next_attempt_at   TIMESTAMP WITH TIME ZONE,
    lease_until       TIMESTAMP WITH TIME ZONE,
    timeout_ms        BIGINT        NOT NULL,
    worker_id         VARCHAR(128),
    origin            VARCHAR(16)   NOT NULL,
    non_retryable     BOOLEAN       NOT NULL,
    policy_version    BIGINT,
    result_summary    TEXT,
    result_truncated  BOOLEAN       NOT NULL,
    result_uri        TEXT,
    fail_reason       VARCHAR(512),
    started_at        TIMESTAMP WITH TIME ZONE,
    finished_at       TIMESTAMP WITH TIME ZONE,
    dispatched_at     TIMESTAMP WITH TIME ZONE,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    updated_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    archived_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX ix_task_instance_history_window ON task_instance_history (task_id, window_key);

CREATE TABLE instance_event_history (
    id                BIGINT        NOT NULL PRIMARY KEY,
    instance_id       BIGINT,
    task_id           VARCHAR(64)   NOT NULL,
    window_key        VARCHAR(64),
    kind              VARCHAR(16)   NOT NULL,
    from_status       VARCHAR(16),
    to_status         VARCHAR(16),
    attempt           INTEGER,
    actor             VARCHAR(128)  NOT NULL,
    reason            TEXT,
    created_at        TIMESTAMP WITH TIME ZONE NOT NULL,
    archived_at       TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE INDEX ix_instance_event_history_window ON instance_event_history (task_id, window_key);
