package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Progress;
import dev.carillon.model.worker.Serves;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Result;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's side of an instance: it claims PENDING instances (taking a lease fenced by the new
 * attempt), renews the leases of its runs, writes their ends, and gives runs back on shutdown.
 * Every write is a compare-and-set on the status and, once claimed, on the attempt, so a worker
 * whose lease expired can no longer write; every statement finds its rows by primary key (see
 * {@link Database#PRIMARY_KEY_PLANS}). Leases run on the database clock.
 *
 * <p>Thread-safe; every method is one statement or one transaction.
 */
public final class LeaseStore {
  private static final Logger log = LoggerFactory.getLogger(LeaseStore.class);

  /**
   * Where an instance stood when a claim for it was lost.
   *
   * @param status the instance's status now
   * @param attempt its attempt now
   * @param workerId the worker of its current or last claim, or null
   * @param queue its task's queue, or null when the task has no definition
   * @param handler its task's handler, or null when the task has no definition
   * @param notDueUntil its {@code scheduled_at} when that is still ahead of the database's clock (a
   *     claim never starts an instance before it), or null
   * @param notDueFor how far ahead of the database's clock {@code notDueUntil} was when read (the
   *     wait before a claim can succeed, whatever this host's clock says), or null
   */
  public record ClaimState(
      String status,
      int attempt,
      String workerId,
      String queue,
      String handler,
      Instant notDueUntil,
      Duration notDueFor) {}

  private final DSLContext dsl;

  public LeaseStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Claims the PENDING instances among {@code ids} in one compare-and-set: {@code PENDING →
   * RUNNING}, {@code attempt + 1}, {@code lease_until = db now + timeout}. Returns the instances
   * this call won, whole, with their new attempt; ids that are not PENDING (duplicate delivery,
   * already running or done) are simply absent, and so are instances whose {@code scheduled_at} is
   * still ahead of the database's clock: whatever clock published them early, a run never starts
   * before its time. Such an instance stays PENDING and is published again by the dispatch sweeps
   * ({@code trigger.redispatch-after}, {@code retry.stranded-after}). A worker claims with {@link
   * #claimForRun}.
   */
  public List<Instance> claim(Collection<Long> ids, String workerId) {
    return claim(
        ids,
        workerId,
        DSL.noCondition(),
        List.of(TASK_INSTANCE.fields()),
        InstanceRows::toInstance,
        Duration.ZERO,
        sent -> {});
  }

  /** What {@link #claimForRun} reads back of each claimed row. */
  private static final List<Field<?>> RUN_FIELDS =
      List.of(
          TASK_INSTANCE.ID,
          TASK_INSTANCE.TASK_ID,
          TASK_INSTANCE.WINDOW_KEY,
          TASK_INSTANCE.WINDOW_START,
          TASK_INSTANCE.WINDOW_END,
          TASK_INSTANCE.SCHEDULED_AT,
          TASK_INSTANCE.ATTEMPT,
          TASK_INSTANCE.RETRY_COUNT,
          TASK_INSTANCE.TIMEOUT_MS,
          TASK_INSTANCE.FAIL_REASON,
          TASK_INSTANCE.PARAMS_OVERRIDE);

  /**
   * {@link #claim} of only the instances this worker serves, returning of each instance won only
   * what its run needs: eleven columns instead of twenty-nine, three timestamps instead of nine
   * (see {@link ClaimedInstance}).
   *
   * <p>The compare-and-set itself leaves alone every instance whose task is in a queue {@code
   * serves} does not list, or has a handler it does not list: such an instance stays PENDING for a
   * worker that can run it, and is absent from the answer like a lost claim. An instance whose task
   * has no definition row at all is claimed (the worker then fails the attempt, naming the missing
   * definition, as before queues existed): no worker could ever serve it better.
   */
  public List<ClaimedInstance> claimForRun(Collection<Long> ids, String workerId, Serves serves) {
    return claimForRun(ids, workerId, serves, sent -> {});
  }

  /**
   * {@link #claimForRun(Collection, String, Serves)}, telling {@code statementSent} the {@link
   * System#nanoTime()} at which the claim statement was about to be sent, once a connection was
   * held: the earliest the claimed leases can have begun. The time spent waiting for a connection
   * is not part of a lease (a worker that counted it, after a PostgreSQL restart, stopped runs
   * whose fresh leases had ten seconds left).
   */
  public List<ClaimedInstance> claimForRun(
      Collection<Long> ids, String workerId, Serves serves, LongConsumer statementSent) {
    return claimForRun(ids, workerId, serves, Duration.ZERO, statementSent);
  }

  /**
   * {@link #claimForRun(Collection, String, Serves, LongConsumer)}, also claiming instances due
   * within {@code ahead} of the database's clock ({@code worker.claim-ahead}): the worker then
   * holds such a run and starts it on its {@code scheduled_at}, so that the claim is not on the
   * fire's path. {@link Duration#ZERO} claims only instances that are due (the statement's text is
   * the same either way; the duration is a bind value).
   *
   * @param ahead how far ahead of the database's clock an instance may be claimed, in whole
   *     milliseconds; not negative
   */
  public List<ClaimedInstance> claimForRun(
      Collection<Long> ids,
      String workerId,
      Serves serves,
      Duration ahead,
      LongConsumer statementSent) {
    if (ahead.isNegative()) {
      throw new IllegalArgumentException("ahead must not be negative, was " + ahead);
    }
    return claim(
        ids, workerId, servedBy(serves), RUN_FIELDS, LeaseStore::toClaimed, ahead, statementSent);
  }

  /**
   * PostgreSQL's clock now ({@code clock_timestamp()}, not the transaction's start), in one round
   * trip: what a worker that claims ahead measures its offset to the database's clock with.
   */
  public Instant databaseTime() {
    return Sql.clockTimestamp(dsl);
  }

  /**
   * No definition of the instance's task says a queue or a handler outside {@code serves}; the
   * definition is found by its primary key, once per claimed row.
   */
  private static Condition servedBy(Serves serves) {
    var d = TASK_DEFINITION.as("claim_def");
    return DSL.notExists(
        DSL.selectOne()
            .from(d)
            .where(d.TASK_ID.eq(TASK_INSTANCE.TASK_ID))
            .and(d.QUEUE.notIn(serves.sortedQueues()).or(notIn(d.HANDLER, serves))));
  }

  private static Condition notIn(Field<String> handler, Serves serves) {
    // NOT IN () is not SQL; a worker without handlers serves nothing.
    return serves.handlers().isEmpty()
        ? DSL.trueCondition()
        : handler.notIn(serves.sortedHandlers());
  }

  private <T> List<T> claim(
      Collection<Long> ids,
      String workerId,
      Condition served,
      List<Field<?>> returned,
      Function<Record, T> mapper,
      Duration ahead,
      LongConsumer statementSent) {
    if (ids.isEmpty()) {
      return List.of();
    }
    InstanceStatus.PENDING.checkTransition(InstanceStatus.RUNNING);
    // One statement: the claim and its events as data-modifying CTEs, atomic without a
    // transaction block, in one round trip: every poll batch of every worker runs it.
    CommonTableExpression<TaskInstanceRecord> claimed =
        DSL.name("claimed")
            .as(
                dsl.update(TASK_INSTANCE)
                    .set(TASK_INSTANCE.STATUS, InstanceStatus.RUNNING.name())
                    .set(TASK_INSTANCE.ATTEMPT, TASK_INSTANCE.ATTEMPT.plus(1))
                    .set(TASK_INSTANCE.LEASE_UNTIL, Sql.nowPlus(TASK_INSTANCE.TIMEOUT_MS))
                    .set(TASK_INSTANCE.WORKER_ID, workerId)
                    .set(TASK_INSTANCE.STARTED_AT, Sql.NOW)
                    .set(TASK_INSTANCE.UPDATED_AT, Sql.NOW)
                    .from(Sql.idTable(ids, InstanceStatus.PENDING))
                    .where(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
                    .and(TASK_INSTANCE.STATUS.eq(Sql.EXPECTED_COLUMN))
                    .and(served)
                    // Never before its time by the database's clock (less the claim-ahead, whose
                    // runs the worker starts on the instant), whoever published it early.
                    .and(TASK_INSTANCE.SCHEDULED_AT.le(Sql.ahead(ahead)))
                    .returning(returned));
    CommonTableExpression<?> events =
        EventRows.eventsOf(
            dsl,
            "claim_events",
            claimed,
            InstanceEvent.Kind.TRANSITION,
            DSL.val(InstanceStatus.PENDING.name()),
            DSL.val(InstanceStatus.RUNNING.name()),
            claimed.field(TASK_INSTANCE.ATTEMPT),
            workerId,
            DSL.val("claimed by " + workerId));
    var query = dsl.with(claimed).with(events).select(claimed.fields()).from(claimed);
    // The connection first, then the time, then the statement on that connection.
    return dsl.connectionResult(
        connection -> {
          DSLContext held = DSL.using(dsl.configuration().derive(connection));
          statementSent.accept(System.nanoTime());
          return held.fetch(query).map(mapper::apply);
        });
  }

  /**
   * A row of {@link #claimForRun}, read by position in {@link #RUN_FIELDS} order: looking a field
   * up by a {@code TASK_INSTANCE} field in a record of the CTE's fields ({@code claimed.id}) falls
   * back to comparing names, table and schema, on the consumer thread for every claimed row.
   */
  private static ClaimedInstance toClaimed(Record r) {
    return new ClaimedInstance(
        (Long) r.get(0),
        (String) r.get(1),
        (String) r.get(2),
        (Instant) r.get(3),
        (Instant) r.get(4),
        (Instant) r.get(5),
        (Integer) r.get(6),
        (Integer) r.get(7),
        Duration.ofMillis((Long) r.get(8)),
        (String) r.get(9),
        (String) r.get(10));
  }

  /**
   * Extends the leases of every running instance in {@code leases} by its timeout, in one fenced
   * statement. Returns the ids whose lease was renewed; a lease missing from the answer was lost
   * (the attempt moved on, or the row left RUNNING) and its run must stop.
   */
  public Set<Long> heartbeat(String workerId, Collection<Lease> leases) {
    return heartbeat(workerId, leases, Map.of());
  }

  /**
   * {@link #heartbeat(String, Collection)}, writing in the same statement the progress reports that
   * changed since they were last written: a lease in {@code progress} gets its report and its time
   * (an empty report clears it), the others keep theirs. Fenced like the renewal: a report is
   * written only with a lease that is renewed.
   *
   * @param progress the changed reports, by lease; leases not in {@code leases} are ignored
   */
  public Set<Long> heartbeat(
      String workerId, Collection<Lease> leases, Map<Lease, Progress> progress) {
    if (leases.isEmpty()) {
      return Set.of();
    }
    int n = leases.size();
    Long[] ids = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] texts = new String[n];
    Long[] reportedMicros = new Long[n];
    int k = 0;
    for (Lease l : leases) {
      ids[k] = l.instanceId();
      attempts[k] = l.attempt();
      Progress p = progress.get(l);
      texts[k] = p == null ? null : p.text();
      reportedMicros[k++] = p == null ? null : WindowStore.micros(p.at());
    }
    // Joined with unnest, the expected status a join column: see Sql.idTable(ids, expected). The
    // progress columns are null for every lease whose report did not change, so the statement is
    // one fixed text whatever changed.
    Table<?> held =
        DSL.table(
            "unnest({0}::bigint[], {1}::int[], {2}::varchar[], {3}::text[], {4}::bigint[])"
                + " as held(id, attempt, expected, progress, progress_micros)",
            DSL.val(ids),
            DSL.val(attempts),
            DSL.val(Sql.repeated(InstanceStatus.RUNNING, n)),
            DSL.val(texts),
            DSL.val(reportedMicros));
    return new HashSet<>(
        dsl.update(TASK_INSTANCE)
            .set(TASK_INSTANCE.LEASE_UNTIL, Sql.nowPlus(TASK_INSTANCE.TIMEOUT_MS))
            .set(TASK_INSTANCE.UPDATED_AT, Sql.NOW)
            .set(
                TASK_INSTANCE.PROGRESS,
                DSL.field(progressText("held", "{0}"), String.class, TASK_INSTANCE.PROGRESS))
            .set(
                TASK_INSTANCE.PROGRESS_AT,
                DSL.field(
                    progressTime("held", "{0}"), SQLDataType.INSTANT, TASK_INSTANCE.PROGRESS_AT))
            .from(held)
            .where(TASK_INSTANCE.ID.eq(DSL.field(DSL.name("held", "id"), Long.class)))
            .and(TASK_INSTANCE.ATTEMPT.eq(DSL.field(DSL.name("held", "attempt"), Integer.class)))
            .and(TASK_INSTANCE.STATUS.eq(DSL.field(DSL.name("held", "expected"), String.class)))
            .and(TASK_INSTANCE.WORKER_ID.eq(workerId))
            .returning(TASK_INSTANCE.ID)
            .fetch(TASK_INSTANCE.ID));
  }

  /**
   * The SQL of a row's new progress text, joined with a batch {@code alias} that has the columns
   * {@code progress} and {@code progress_micros}: {@code current} where the batch's is null
   * (unchanged), null where it is empty (cleared).
   */
  private static String progressText(String alias, String current) {
    return "CASE WHEN "
        + alias
        + ".progress IS NULL THEN "
        + current
        + " ELSE NULLIF("
        + alias
        + ".progress, '') END";
  }

  /**
   * The SQL of a row's new progress time, as {@link #progressText}; the batch carries it in whole
   * microseconds since the epoch, turned into a {@code timestamptz} as {@link WindowStore} does.
   */
  private static String progressTime(String alias, String current) {
    return "CASE WHEN "
        + alias
        + ".progress IS NULL THEN "
        + current
        + " WHEN "
        + alias
        + ".progress = '' THEN NULL ELSE timestamptz 'epoch' + ("
        + alias
        + ".progress_micros / 1000000) * interval '1 second' + ("
        + alias
        + ".progress_micros % 1000000) * interval '1 microsecond' END";
  }

  /**
   * Writes the end of an attempt, fenced by {@code attempt}: returns {@code false} and changes
   * nothing when the attempt is stale (a zombie worker) or the row is no longer RUNNING. A batch of
   * one for {@link #completeAll}, so that there is one way to write an end.
   */
  public boolean complete(Lease lease, Outcome outcome, String actor) {
    return completeAll(List.of(new AttemptEnd(lease, outcome)), actor).contains(lease);
  }

  /** How often {@link #completeAll} runs its transaction again after a deadlock. */
  static final int DEADLOCK_TRIES = 5;

  /**
   * Writes the ends of many attempts in one statement: an {@code UPDATE ... FROM unnest(...)} and
   * the insert of its events, whatever the batch size. Each row is fenced exactly like {@link
   * #complete}: it is written only while it is RUNNING at the completion's attempt, and only a
   * written row gets its event. A stale completion in the batch changes nothing and does not stop
   * the others.
   *
   * <p>One statement in autocommit, so atomic on its own: a transaction block around it only cost
   * two more round trips ({@code BEGIN}, {@code COMMIT}) per group of ends. Runs it again (a few
   * times) when PostgreSQL aborts it as a deadlock victim; that can happen when another multi-row
   * statement (a heartbeat, another batch) locks some of the same rows in another order.
   *
   * @param completions at most one per instance
   * @return the leases whose end was written; the others were stale or no longer RUNNING
   * @throws IllegalArgumentException when an instance appears twice
   */
  public Set<Lease> completeAll(List<AttemptEnd> completions, String actor) {
    if (completions.isEmpty()) {
      return Set.of();
    }
    Map<Long, AttemptEnd> byId = new TreeMap<>();
    for (AttemptEnd c : completions) {
      InstanceStatus.RUNNING.checkTransition(c.outcome().status());
      if (byId.put(c.lease().instanceId(), c) != null) {
        throw new IllegalArgumentException(
            "instance " + c.lease().instanceId() + " appears twice in one completeAll batch");
      }
    }
    for (int tried = 1; ; tried++) {
      try {
        return completeIn(dsl, byId, actor);
      } catch (DataAccessException e) {
        if (tried >= DEADLOCK_TRIES || !"40P01".equals(e.sqlState())) {
          throw e;
        }
        log.info("completeAll was a deadlock victim (try {}); running it again", tried);
      }
    }
  }

  private static Set<Lease> completeIn(DSLContext dsl, Map<Long, AttemptEnd> byId, String actor) {
    // Sorted by id (byId is a TreeMap), so two batches over the same rows usually lock them in the
    // same order; the deadlock retry above covers the rest.
    int n = byId.size();
    Long[] ids = new Long[n];
    Integer[] attempts = new Integer[n];
    String[] statuses = new String[n];
    String[] summaries = new String[n];
    Boolean[] truncated = new Boolean[n];
    String[] uris = new String[n];
    String[] reasons = new String[n];
    Boolean[] nonRetryable = new Boolean[n];
    String[] progressTexts = new String[n];
    Long[] progressMicros = new Long[n];
    int k = 0;
    for (AttemptEnd c : byId.values()) {
      Outcome o = c.outcome();
      boolean success = o.status() == InstanceStatus.SUCCESS;
      ids[k] = c.lease().instanceId();
      attempts[k] = c.lease().attempt();
      statuses[k] = o.status().name();
      summaries[k] = success ? o.summary() : null;
      truncated[k] = success && o.truncated();
      uris[k] = success ? o.uri() : null;
      reasons[k] = o.reason();
      Progress p = c.progress();
      progressTexts[k] = p == null ? null : p.text();
      progressMicros[k] = p == null ? null : WindowStore.micros(p.at());
      nonRetryable[k++] = o.nonRetryable();
    }
    // One statement: the ends and their events as data-modifying CTEs (one round trip, no event
    // arrays); only a row the fenced update wrote gets an event. The expected status is a join
    // column (v.expected), not a literal: see Sql.idTable(ids, expected).
    Result<Record> rows =
        dsl.resultQuery(
                "WITH ended AS (UPDATE task_instance t SET status = v.status, lease_until = NULL,"
                    + " updated_at = now(), fail_reason = v.reason,"
                    + " non_retryable = v.non_retryable,"
                    + " result_summary = CASE WHEN v.status = 'SUCCESS' THEN v.summary"
                    + " ELSE t.result_summary END,"
                    + " result_truncated = CASE WHEN v.status = 'SUCCESS' THEN v.truncated"
                    + " ELSE t.result_truncated END,"
                    + " result_uri = CASE WHEN v.status = 'SUCCESS' THEN v.uri"
                    + " ELSE t.result_uri END,"
                    + " finished_at = CASE WHEN v.status = 'SUCCESS' THEN now()"
                    + " ELSE t.finished_at END,"
                    + " progress = "
                    + progressText("v", "t.progress")
                    + ", progress_at = "
                    + progressTime("v", "t.progress_at")
                    + " FROM unnest({0}::bigint[], {1}::int[], {2}::varchar[], {3}::text[],"
                    + " {4}::boolean[], {5}::text[], {6}::text[], {7}::boolean[], {11}::varchar[],"
                    + " {12}::text[], {13}::bigint[])"
                    + " AS v(id, attempt, status, summary, truncated, uri, reason, non_retryable,"
                    + " expected, progress, progress_micros)"
                    + " WHERE t.id = v.id AND t.status = v.expected AND t.attempt = v.attempt"
                    + " RETURNING t.id, t.task_id, t.window_key, t.attempt, t.status, v.reason),"
                    + " end_events AS (INSERT INTO instance_event (instance_id, task_id,"
                    + " window_key, kind, from_status, to_status, attempt, actor, reason)"
                    + " SELECT id, task_id, window_key, {8}, {9}, status, attempt, {10},"
                    + " CASE WHEN status = 'SUCCESS' THEN 'succeeded' ELSE reason END FROM ended)"
                    + " SELECT id, attempt FROM ended",
                DSL.val(ids),
                DSL.val(attempts),
                DSL.val(statuses),
                DSL.val(summaries),
                DSL.val(truncated),
                DSL.val(uris),
                DSL.val(reasons),
                DSL.val(nonRetryable),
                DSL.val(InstanceEvent.Kind.TRANSITION.name()),
                DSL.val(InstanceStatus.RUNNING.name()),
                DSL.val(actor),
                DSL.val(Sql.repeated(InstanceStatus.RUNNING, n)),
                DSL.val(progressTexts),
                DSL.val(progressMicros))
            .fetch();
    Set<Lease> written = new HashSet<>();
    for (Record r : rows) {
      written.add(new Lease(r.get(0, Long.class), r.get(1, Integer.class)));
    }
    return written;
  }

  /**
   * Gives a running attempt back: {@code RUNNING → PENDING}, no retry consumed, undispatched so it
   * is published again. Fenced by attempt.
   */
  public boolean release(Lease lease, String actor, String reason) {
    return CompareAndSet.move(
            dsl,
            lease.instanceId(),
            InstanceStatus.RUNNING,
            lease.attempt(),
            InstanceStatus.PENDING,
            actor,
            reason,
            u ->
                u.set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
                    .set(TASK_INSTANCE.WORKER_ID, (String) null)
                    .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null))
        .isPresent();
  }

  /**
   * Stamps {@code dispatched_at} on the released instances among {@code ids} that are still
   * PENDING, once Kafka acknowledged their ids; rows another transaction holds are skipped. Writes
   * {@link #stampStatements(int) stampStatements(ids.size())} statements.
   *
   * @return the rows stamped
   */
  public int markDispatched(Collection<Long> ids) {
    return DispatchStamp.mark(dsl, ids, null);
  }

  /** How many statements (each its own transaction) a stamp of {@code ids} ids writes. */
  public static int stampStatements(int ids) {
    return (ids + DispatchStamp.CHUNK - 1) / DispatchStamp.CHUNK;
  }

  /**
   * The current state of the given instances, in one statement; ids without a row are absent. Used
   * only to explain lost claims in the log, so it reads without locking.
   */
  public Map<Long, ClaimState> claimStates(Collection<Long> ids) {
    Map<Long, ClaimState> out = new HashMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    Field<Instant> notDue =
        DSL.when(TASK_INSTANCE.SCHEDULED_AT.gt(Sql.NOW), TASK_INSTANCE.SCHEDULED_AT)
            .else_(DSL.val((Instant) null, SQLDataType.INSTANT));
    Field<Double> notDueSeconds =
        DSL.when(
                TASK_INSTANCE.SCHEDULED_AT.gt(Sql.NOW),
                DSL.field(
                    "extract(epoch from ({0} - {1}))",
                    SQLDataType.DOUBLE, TASK_INSTANCE.SCHEDULED_AT, Sql.NOW))
            .else_(DSL.val((Double) null, SQLDataType.DOUBLE));
    dsl.select(
            TASK_INSTANCE.ID,
            TASK_INSTANCE.STATUS,
            TASK_INSTANCE.ATTEMPT,
            TASK_INSTANCE.WORKER_ID,
            TASK_DEFINITION.QUEUE,
            TASK_DEFINITION.HANDLER,
            notDue,
            notDueSeconds)
        .from(TASK_INSTANCE)
        .join(Sql.idTable(ids))
        .on(TASK_INSTANCE.ID.eq(Sql.ID_COLUMN))
        .leftJoin(TASK_DEFINITION)
        .on(TASK_DEFINITION.TASK_ID.eq(TASK_INSTANCE.TASK_ID))
        .fetch()
        .forEach(
            r ->
                out.put(
                    r.value1(),
                    new ClaimState(
                        r.value2(),
                        r.value3(),
                        r.value4(),
                        r.value5(),
                        r.value6(),
                        r.value7(),
                        r.value8() == null
                            ? null
                            : Duration.ofNanos(Math.round(r.value8() * 1_000_000_000d)))));
    return out;
  }
}
