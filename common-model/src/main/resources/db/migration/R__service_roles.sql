-- Carillon schema, repeatable: one PostgreSQL role per service, each with the least it needs.
--
-- A repeatable migration: Flyway runs it after every versioned one, and again whenever this file
-- changes. It first revokes everything from the five roles and then grants, so this file is the
-- whole truth about what each role may do, whatever migrations came before. A migration that adds
-- a table or a column a role must write adds its grant here (ServiceRolesTest fails otherwise).
--
-- Until now every service and the CLI used one user that owned the schema. The roles below hold
-- grants only; they cannot log in until the migrate step is given a password for them
-- (roles.<name>.password, see docs/security.md), or until a DBA grants them to login users of
-- their own (GRANT carillon_worker TO worker_login). Role names carry the prefix db.role-prefix
-- (default carillon_), so two installations can share one PostgreSQL cluster.
--
--   trigger   reads definitions; creates instances, their events, cursors, offsets, debounce
--             state; stamps dispatches and re-runs dependencies
--   worker    reads definitions and instances; claims, renews, ends and releases instances (only
--             the columns a run changes), writes their events
--   retry     reads definitions; moves instances through timeouts, retries, promotions and
--             republication; stamps DEAD alerts sent and quarantines rows; archives finished
--             instances into the history tables
--   api       the control plane and schedctl: applies and pauses definitions, creates manual and
--             backfill instances, cancels and re-runs, reads everything
--   readonly  dashboards: reads everything, changes nothing (also read-only by session default)
--
-- Creating a role needs CREATEROLE; a migration user without it finds the roles created
-- beforehand by a DBA (any attributes) and only grants.

/* [jooq ignore start] */
DO $$
DECLARE
    r TEXT;
BEGIN
    FOREACH r IN ARRAY ARRAY['trigger', 'worker', 'retry', 'api', 'readonly'] LOOP
        IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${rolePrefix}' || r) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I NOLOGIN', '${rolePrefix}' || r);
                IF r = 'readonly' THEN
                    EXECUTE format('ALTER ROLE %I SET default_transaction_read_only = on',
                                   '${rolePrefix}' || r);
                END IF;
            EXCEPTION WHEN duplicate_object OR unique_violation THEN
                -- Roles belong to the cluster: another database's migration made it meanwhile.
                NULL;
            END;
        END IF;
    END LOOP;
END
$$;

-- Only the owner creates objects in the schema (PostgreSQL 15 already has it so).
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

REVOKE ALL ON ALL TABLES IN SCHEMA public
    FROM ${rolePrefix}trigger, ${rolePrefix}worker, ${rolePrefix}retry, ${rolePrefix}api,
         ${rolePrefix}readonly;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public
    FROM ${rolePrefix}trigger, ${rolePrefix}worker, ${rolePrefix}retry, ${rolePrefix}api,
         ${rolePrefix}readonly;

GRANT SELECT ON flyway_schema_history
    TO ${rolePrefix}trigger, ${rolePrefix}worker, ${rolePrefix}retry, ${rolePrefix}api,
       ${rolePrefix}readonly;

-- trigger
GRANT SELECT ON task_definition, task_definition_change TO ${rolePrefix}trigger;
GRANT SELECT, INSERT, UPDATE ON task_instance TO ${rolePrefix}trigger;
GRANT SELECT, INSERT ON instance_event TO ${rolePrefix}trigger;
-- A decision repeating its window's latest event is counted on that row (V20).
GRANT UPDATE (repeats, last_at) ON instance_event TO ${rolePrefix}trigger;
GRANT SELECT, INSERT, UPDATE ON trigger_cursor, trigger_offset, condition_state
    TO ${rolePrefix}trigger;
GRANT USAGE ON SEQUENCE task_instance_id_seq, instance_event_id_seq TO ${rolePrefix}trigger;
-- The undispatched sweep leaves alone an instance no live worker serves (V12).
GRANT SELECT ON worker_presence, worker_capability TO ${rolePrefix}trigger;
-- Its leader epoch (V11): a new leader bumps it; every leader-only write checks it FOR SHARE,
-- which PostgreSQL allows only with UPDATE on the table.
GRANT SELECT, INSERT, UPDATE ON leader_epoch TO ${rolePrefix}trigger;

-- worker: plugins run in its process, so it may change only the columns of a run.
GRANT SELECT ON task_definition TO ${rolePrefix}worker;
GRANT SELECT ON task_instance TO ${rolePrefix}worker;
GRANT UPDATE (status, attempt, lease_until, worker_id, started_at, finished_at, updated_at,
              dispatched_at, fail_reason, non_retryable, result_summary, result_truncated,
              result_uri, progress, progress_at)
    ON task_instance TO ${rolePrefix}worker;
-- Its statements insert events with RETURNING id, which needs SELECT on that column alone.
GRANT INSERT, SELECT (id) ON instance_event TO ${rolePrefix}worker;
GRANT USAGE ON SEQUENCE instance_event_id_seq TO ${rolePrefix}worker;
-- Its presence (V12): its own row and capabilities, and the purge of workers long gone.
GRANT SELECT, INSERT, UPDATE, DELETE ON worker_presence TO ${rolePrefix}worker;
GRANT SELECT, INSERT, DELETE ON worker_capability TO ${rolePrefix}worker;
-- Its runs' checkpoints and effects (V14); the statements are fenced by the lease.
GRANT SELECT, INSERT, UPDATE ON instance_checkpoint, instance_effect TO ${rolePrefix}worker;

-- retry
GRANT SELECT ON task_definition TO ${rolePrefix}retry;
GRANT SELECT, DELETE ON task_instance TO ${rolePrefix}retry;
-- alerted_at: the DEAD-alert outbox; quarantined_at: rows a scanner set aside (V11).
GRANT UPDATE (status, retry_count, next_attempt_at, lease_until, worker_id, finished_at,
              updated_at, dispatched_at, policy_version, fail_reason, alerted_at, quarantined_at)
    ON task_instance TO ${rolePrefix}retry;
GRANT SELECT, INSERT, DELETE ON instance_event TO ${rolePrefix}retry;
-- A quarantine's decision may be counted on its window's latest event (V20).
GRANT UPDATE (repeats, last_at) ON instance_event TO ${rolePrefix}retry;
GRANT SELECT, INSERT ON task_instance_history, instance_event_history TO ${rolePrefix}retry;
GRANT USAGE ON SEQUENCE instance_event_id_seq TO ${rolePrefix}retry;
-- Which queues and handlers live workers serve (the stranded and waiting scans).
GRANT SELECT ON worker_presence, worker_capability TO ${rolePrefix}retry;
-- Archival moves the checkpoints and effects of a finished instance with it.
GRANT SELECT, DELETE ON instance_checkpoint, instance_effect TO ${rolePrefix}retry;
GRANT SELECT, INSERT ON instance_checkpoint_history, instance_effect_history TO ${rolePrefix}retry;
-- Its scan passes, for the console's overview (V18).
GRANT SELECT, INSERT, UPDATE ON retry_scan TO ${rolePrefix}retry;
-- Its leader epoch (V11), as for the trigger.
GRANT SELECT, INSERT, UPDATE ON leader_epoch TO ${rolePrefix}retry;

-- api (and schedctl). Definitions are deleted softly (deleted_at), so no DELETE anywhere.
GRANT SELECT, INSERT, UPDATE ON task_definition TO ${rolePrefix}api;
GRANT SELECT, INSERT ON task_event TO ${rolePrefix}api;
-- The statement trigger on task_definition (V5, V6) runs as the caller and moves this counter.
GRANT SELECT, UPDATE ON task_definition_change TO ${rolePrefix}api;
GRANT SELECT, INSERT, UPDATE ON task_instance TO ${rolePrefix}api;
GRANT SELECT, INSERT ON instance_event TO ${rolePrefix}api;
-- Clearing a quarantine records a decision, which may be counted on the latest event (V20).
GRANT UPDATE (repeats, last_at) ON instance_event TO ${rolePrefix}api;
GRANT SELECT ON trigger_cursor, trigger_offset, condition_state, task_instance_history,
                instance_event_history
    TO ${rolePrefix}api;
GRANT USAGE ON SEQUENCE task_instance_id_seq, instance_event_id_seq, task_event_id_seq
    TO ${rolePrefix}api;
-- why and describe name the queue nobody serves; a re-run from scratch discards what the
-- attempts left (V14).
GRANT SELECT ON worker_presence, worker_capability, instance_checkpoint_history,
                instance_effect_history, retry_scan
    TO ${rolePrefix}api;
GRANT SELECT, DELETE ON instance_checkpoint, instance_effect TO ${rolePrefix}api;

-- Each leader's role sees and changes only its own service's epoch row. A grant is per table, so
-- without these policies a compromised trigger could bump the retry service's epoch (and the
-- retry service the trigger's), fencing out the other's leader at will. The owner, which the
-- migrate step and services run with db.migrate=true use, is not subject to them.
ALTER TABLE leader_epoch ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS leader_epoch_trigger ON leader_epoch;
CREATE POLICY leader_epoch_trigger ON leader_epoch TO ${rolePrefix}trigger
    USING (service = 'trigger') WITH CHECK (service = 'trigger');
DROP POLICY IF EXISTS leader_epoch_retry ON leader_epoch;
CREATE POLICY leader_epoch_retry ON leader_epoch TO ${rolePrefix}retry
    USING (service = 'retry') WITH CHECK (service = 'retry');
DROP POLICY IF EXISTS leader_epoch_readonly ON leader_epoch;
CREATE POLICY leader_epoch_readonly ON leader_epoch FOR SELECT TO ${rolePrefix}readonly
    USING (true);

-- readonly
GRANT SELECT ON task_definition, task_definition_change, task_event, task_instance,
                instance_event, trigger_cursor, trigger_offset, condition_state,
                task_instance_history, instance_event_history, worker_presence,
                worker_capability, instance_checkpoint, instance_effect,
                instance_checkpoint_history, instance_effect_history, retry_scan, leader_epoch
    TO ${rolePrefix}readonly;
/* [jooq ignore stop] */
