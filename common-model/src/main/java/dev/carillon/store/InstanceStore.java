package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;

import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.store.jooq.tables.records.InstanceEventRecord;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep9;
import org.jooq.Record;
import org.jooq.Record4;
import org.jooq.Result;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The instance table in domain words. Every status change is a compare-and-set ({@code UPDATE ...
 * WHERE id = ? AND status = ? [AND attempt = ?]}) checked against {@link InstanceStatus} first, and
 * writes its {@code instance_event} row in the same transaction. Lease and due-time comparisons use
 * the database clock, so workers with skewed clocks cannot disagree about who holds a lease.
 *
 * <p>Thread-safe; every method runs in its own transaction.
 */
public final class InstanceStore {
  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(InstanceStore.class);

  /** The database's clock at the start of the transaction. */
  static final Field<Instant> NOW = DSL.field("now()", SQLDataType.INSTANT);

  private final DSLContext dsl;

  public InstanceStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  public Instant dbNow() {
    return dsl.select(NOW).fetchSingle().value1();
  }

  private static Field<Instant> nowPlus(Field<Long> millis) {
    return DSL.field("now() + ({0} * interval '1 millisecond')", SQLDataType.INSTANT, millis);
  }

  private static Field<Instant> nowMinus(Duration d) {
    return DSL.field(
        "now() - ({0} * interval '1 millisecond')", SQLDataType.INSTANT, DSL.val(d.toMillis()));
  }

  // ---------------------------------------------------------------- creation

  /**
   * Inserts the rows whose {@code (task_id, window_key)} is new, in one statement, and returns
   * exactly those; a window that exists is left untouched. Never check-then-insert: the UNIQUE
   * index decides.
   */
  public List<Instance> insertAll(List<NewInstance> rows, String actor) {
    if (rows.isEmpty()) {
      return List.of();
    }
    return dsl.transactionResult(cfg -> insertIn(DSL.using(cfg), rows, actor));
  }

  /**
   * One trigger tick, atomically: inserts the new windows (the UNIQUE index decides), logs the
   * decisions that created nothing, and moves each task's cursor forward (never backwards, so two
   * leaders in a split brain cannot rewind each other).
   */
  public List<Instance> commitTick(
      List<NewInstance> rows,
      List<Decision> decisions,
      Map<String, Instant> cursors,
      String actor) {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Instance> created = insertIn(tx, rows, actor);
          insertEvents(tx, decisions.stream().map(InstanceStore::decisionEvent).toList());
          if (!cursors.isEmpty()) {
            String[] ids = new String[cursors.size()];
            Long[] until = new Long[cursors.size()];
            int k = 0;
            // Sorted, so that two leaders in a split brain lock cursor rows in the same order.
            for (Map.Entry<String, Instant> c : new java.util.TreeMap<>(cursors).entrySet()) {
              ids[k] = c.getKey();
              until[k++] = micros(c.getValue());
            }
            Table<?> t =
                DSL.table(
                    "unnest({0}::varchar[], {1}::bigint[]) as t(task_id, evaluated_until_us)",
                    DSL.val(ids), DSL.val(until));
            tx.insertInto(TRIGGER_CURSOR, TRIGGER_CURSOR.TASK_ID, TRIGGER_CURSOR.EVALUATED_UNTIL)
                .select(
                    DSL.select(
                            DSL.field(DSL.name("t", "task_id"), String.class),
                            fromMicros(DSL.field(DSL.name("t", "evaluated_until_us"), Long.class)))
                        .from(t))
                .onConflict(TRIGGER_CURSOR.TASK_ID)
                .doUpdate()
                .set(
                    TRIGGER_CURSOR.EVALUATED_UNTIL,
                    DSL.greatest(
                        TRIGGER_CURSOR.EVALUATED_UNTIL,
                        DSL.excluded(TRIGGER_CURSOR.EVALUATED_UNTIL)))
                .set(TRIGGER_CURSOR.UPDATED_AT, NOW)
                .execute();
          }
          return created;
        });
  }

  private static List<Instance> insertIn(DSLContext tx, List<NewInstance> rows, String actor) {
    if (rows.isEmpty()) {
      return List.of();
    }
    // One statement whatever the batch size: each column travels as one array bind value and
    // unnest() turns the arrays back into rows. A multi-row VALUES list would carry 11 bind values
    // per row, which costs far more to render, parse and plan (and caps a batch at ~3,000 rows).
    int n = rows.size();
    String[] taskIds = new String[n];
    String[] keys = new String[n];
    Long[] starts = new Long[n];
    Long[] ends = new Long[n];
    Long[] scheduled = new Long[n];
    String[] statuses = new String[n];
    String[] origins = new String[n];
    Long[] timeouts = new Long[n];
    Integer[] maxRetries = new Integer[n];
    String[] reasons = new String[n];
    for (int k = 0; k < n; k++) {
      NewInstance r = rows.get(k);
      taskIds[k] = r.taskId();
      keys[k] = r.window().key();
      starts[k] = micros(r.window().start());
      ends[k] = micros(r.window().end());
      scheduled[k] = micros(r.scheduledAt());
      statuses[k] = r.status().name();
      origins[k] = r.origin().name();
      timeouts[k] = r.timeout().toMillis();
      maxRetries[k] = r.maxRetry();
      reasons[k] = r.status() == InstanceStatus.SKIPPED ? Outcome.clip(r.reason()) : null;
    }
    Table<?> t =
        DSL.table(
            "unnest({0}::varchar[], {1}::varchar[], {2}::bigint[], {3}::bigint[],"
                + " {4}::bigint[], {5}::varchar[], {6}::varchar[], {7}::bigint[],"
                + " {8}::int[], {9}::varchar[]) as t(task_id, window_key, window_start_us,"
                + " window_end_us, scheduled_at_us, status, origin, timeout_ms, max_retry,"
                + " fail_reason)",
            DSL.val(taskIds),
            DSL.val(keys),
            DSL.val(starts),
            DSL.val(ends),
            DSL.val(scheduled),
            DSL.val(statuses),
            DSL.val(origins),
            DSL.val(timeouts),
            DSL.val(maxRetries),
            DSL.val(reasons));
    Field<String> status = DSL.field(DSL.name("t", "status"), String.class);
    Map<String, NewInstance> byKey = planned(rows);
    // The CREATED events come from the inserted rows in the same statement (a data-modifying
    // CTE), so only a window that was really created gets one, and the events cost no arrays of
    // their own: built here and parsed there, those nine arrays were a fifth of the tick's work.
    CommonTableExpression<?> inserted =
        DSL.name("inserted")
            .as(
                tx.insertInto(
                        TASK_INSTANCE,
                        TASK_INSTANCE.TASK_ID,
                        TASK_INSTANCE.WINDOW_KEY,
                        TASK_INSTANCE.WINDOW_START,
                        TASK_INSTANCE.WINDOW_END,
                        TASK_INSTANCE.SCHEDULED_AT,
                        TASK_INSTANCE.STATUS,
                        TASK_INSTANCE.ORIGIN,
                        TASK_INSTANCE.TIMEOUT_MS,
                        TASK_INSTANCE.MAX_RETRY,
                        TASK_INSTANCE.FAIL_REASON,
                        TASK_INSTANCE.FINISHED_AT)
                    .select(
                        DSL.select(
                                DSL.field(DSL.name("t", "task_id"), String.class),
                                DSL.field(DSL.name("t", "window_key"), String.class),
                                fromMicros(DSL.field(DSL.name("t", "window_start_us"), Long.class)),
                                fromMicros(DSL.field(DSL.name("t", "window_end_us"), Long.class)),
                                fromMicros(DSL.field(DSL.name("t", "scheduled_at_us"), Long.class)),
                                status,
                                DSL.field(DSL.name("t", "origin"), String.class),
                                DSL.field(DSL.name("t", "timeout_ms"), Long.class),
                                DSL.field(DSL.name("t", "max_retry"), Integer.class),
                                DSL.field(DSL.name("t", "fail_reason"), String.class),
                                DSL.when(status.eq(InstanceStatus.SKIPPED.name()), NOW)
                                    .else_(DSL.val((Instant) null, SQLDataType.INSTANT)))
                            .from(t))
                    .onConflict(TASK_INSTANCE.TASK_ID, TASK_INSTANCE.WINDOW_KEY)
                    .doNothing()
                    .returningResult(
                        TASK_INSTANCE.ID,
                        TASK_INSTANCE.TASK_ID,
                        TASK_INSTANCE.WINDOW_KEY,
                        TASK_INSTANCE.CREATED_AT,
                        TASK_INSTANCE.STATUS,
                        TASK_INSTANCE.ORIGIN,
                        TASK_INSTANCE.FAIL_REASON));
    Field<String> insertedStatus = inserted.field(TASK_INSTANCE.STATUS);
    Field<String> insertedKey = inserted.field(TASK_INSTANCE.WINDOW_KEY);
    CommonTableExpression<?> events =
        eventsOf(
            tx,
            "created_events",
            inserted,
            InstanceEvent.Kind.CREATED,
            DSL.inline((String) null, SQLDataType.VARCHAR),
            insertedStatus,
            DSL.inline(0),
            actor,
            // A skip explains itself; a creation names its window and origin.
            DSL.when(
                    insertedStatus.eq(DSL.inline(InstanceStatus.SKIPPED.name())),
                    inserted.field(TASK_INSTANCE.FAIL_REASON))
                .else_(
                    DSL.concat(
                        DSL.inline("created for window "),
                        insertedKey,
                        DSL.inline(" ("),
                        inserted.field(TASK_INSTANCE.ORIGIN),
                        DSL.inline(")"))));
    return tx.with(inserted)
        .with(events)
        .select(
            inserted.field(TASK_INSTANCE.ID),
            inserted.field(TASK_INSTANCE.TASK_ID),
            insertedKey,
            inserted.field(TASK_INSTANCE.CREATED_AT))
        .from(inserted)
        .fetch()
        .map(r -> created(byKey.get(r.value2() + "/" + r.value3()), r));
  }

  /** The planned rows by {@code taskId/windowKey}; the first wins, as in the insert. */
  private static Map<String, NewInstance> planned(List<NewInstance> rows) {
    Map<String, NewInstance> out = new java.util.HashMap<>(rows.size() * 2);
    for (NewInstance r : rows) {
      out.putIfAbsent(r.taskId() + "/" + r.window().key(), r);
    }
    return out;
  }

  /**
   * A freshly inserted row as an {@link Instance}, built from what was inserted plus the columns
   * only the database knows. Reading all 26 columns back made up most of the client's work in a
   * large tick (PostgreSQL formats every timestamp as text, jOOQ parses and copies it twice). The
   * inserted timestamps are exactly the whole microseconds that were sent ({@link #micros}); every
   * column the insert leaves to its default is as {@code V1__instances.sql} sets it, and {@code
   * created_at}, {@code updated_at} and a SKIPPED row's {@code finished_at} all hold the
   * transaction's {@code now()}. {@code InstanceStoreTickTest} compares the result with the row.
   */
  private static Instance created(NewInstance n, Record4<Long, String, String, Instant> r) {
    boolean skipped = n.status() == InstanceStatus.SKIPPED;
    Instant now = r.value4();
    return new Instance(
        r.value1(),
        r.value2(),
        r.value3(),
        ofMicros(micros(n.window().start())),
        ofMicros(micros(n.window().end())),
        ofMicros(micros(n.scheduledAt())),
        n.status(),
        0,
        0,
        n.maxRetry(),
        null,
        null,
        Duration.ofMillis(n.timeout().toMillis()),
        null,
        n.origin(),
        false,
        null,
        null,
        false,
        null,
        skipped ? Outcome.clip(n.reason()) : null,
        null,
        skipped ? now : null,
        null,
        now,
        now);
  }

  /**
   * {@code instant} in whole microseconds since the epoch, the precision PostgreSQL keeps (nearest,
   * half up). Timestamps an insert writes in bulk travel as these numbers: a {@code bigint} array
   * costs a fraction of formatting and parsing as many timestamps as text, and the stored value is
   * known here exactly.
   */
  static long micros(Instant instant) {
    return Math.addExact(
        Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), (instant.getNano() + 500) / 1000);
  }

  static Instant ofMicros(long micros) {
    return Instant.ofEpochSecond(
        Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
  }

  /**
   * The {@code timestamptz} of a {@link #micros} value. Whole seconds and the remaining
   * microseconds are added separately, each product exact in the float arithmetic of {@code
   * interval * number} for any year PostgreSQL can store.
   */
  private static Field<Instant> fromMicros(Field<Long> micros) {
    return DSL.field(
        "(timestamptz 'epoch' + ({0} / 1000000) * interval '1 second'"
            + " + ({0} % 1000000) * interval '1 microsecond')",
        SQLDataType.INSTANT, micros);
  }

  /** Writes decisions that changed no row to the event log, in one statement. */
  public void recordDecisions(List<Decision> decisions) {
    insertEvents(dsl, decisions.stream().map(InstanceStore::decisionEvent).toList());
  }

  private static EventRow decisionEvent(Decision d) {
    return new EventRow(
        d.instanceId(),
        d.taskId(),
        d.windowKey(),
        InstanceEvent.Kind.DECISION,
        null,
        null,
        null,
        d.actor(),
        d.reason());
  }

  // ---------------------------------------------------------------- worker side

  /**
   * Claims the PENDING instances among {@code ids} in one compare-and-set: {@code PENDING →
   * RUNNING}, {@code attempt + 1}, {@code lease_until = db now + timeout}. Returns the instances
   * this call won, whole, with their new attempt; ids that are not PENDING (duplicate delivery,
   * already running or done) are simply absent. A worker claims with {@link #claimForRun}.
   */
  public List<Instance> claim(Collection<Long> ids, String workerId) {
    return claim(ids, workerId, List.of(TASK_INSTANCE.fields()), InstanceStore::toInstance);
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
          TASK_INSTANCE.FAIL_REASON);

  /**
   * {@link #claim}, returning of each instance won only what its run needs: ten columns instead of
   * twenty-six, three timestamps instead of eight (see {@link ClaimedInstance}).
   */
  public List<ClaimedInstance> claimForRun(Collection<Long> ids, String workerId) {
    return claim(ids, workerId, RUN_FIELDS, InstanceStore::toClaimed);
  }

  private <T> List<T> claim(
      Collection<Long> ids,
      String workerId,
      List<Field<?>> returned,
      java.util.function.Function<Record, T> mapper) {
    if (ids.isEmpty()) {
      return List.of();
    }
    InstanceStatus.PENDING.checkTransition(InstanceStatus.RUNNING);
    // One statement: the claim and its events as data-modifying CTEs, atomic without a
    // transaction block. Every poll batch of every worker runs it; as update + event insert in a
    // transaction it was four round trips and nine event arrays built here and parsed there.
    CommonTableExpression<TaskInstanceRecord> claimed =
        DSL.name("claimed")
            .as(
                dsl.update(TASK_INSTANCE)
                    .set(TASK_INSTANCE.STATUS, InstanceStatus.RUNNING.name())
                    .set(TASK_INSTANCE.ATTEMPT, TASK_INSTANCE.ATTEMPT.plus(1))
                    .set(TASK_INSTANCE.LEASE_UNTIL, nowPlus(TASK_INSTANCE.TIMEOUT_MS))
                    .set(TASK_INSTANCE.WORKER_ID, workerId)
                    .set(TASK_INSTANCE.STARTED_AT, NOW)
                    .set(TASK_INSTANCE.UPDATED_AT, NOW)
                    .from(idTable(ids, InstanceStatus.PENDING))
                    .where(TASK_INSTANCE.ID.eq(ID_COLUMN))
                    .and(TASK_INSTANCE.STATUS.eq(EXPECTED_COLUMN))
                    .returning(returned));
    CommonTableExpression<?> events =
        eventsOf(
            dsl,
            "claim_events",
            claimed,
            InstanceEvent.Kind.TRANSITION,
            DSL.val(InstanceStatus.PENDING.name()),
            DSL.val(InstanceStatus.RUNNING.name()),
            claimed.field(TASK_INSTANCE.ATTEMPT),
            workerId,
            DSL.val("claimed by " + workerId));
    return dsl.with(claimed)
        .with(events)
        .select(claimed.fields())
        .from(claimed)
        .fetch()
        .map(mapper::apply);
  }

  /**
   * A row of {@link #claimForRun}, read by position in {@link #RUN_FIELDS} order: looking a field
   * up by a {@code TASK_INSTANCE} field in a record of the CTE's fields ({@code claimed.id}) falls
   * back to comparing names, table and schema, which was a sixth of the consumer thread's time.
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
        (String) r.get(9));
  }

  /**
   * Extends the leases of every running instance in {@code leases} by its timeout, in one fenced
   * statement. Returns the ids whose lease was renewed; a lease missing from the answer was lost
   * (the attempt moved on, or the row left RUNNING) and its run must stop.
   */
  public Set<Long> heartbeat(String workerId, Collection<Lease> leases) {
    if (leases.isEmpty()) {
      return Set.of();
    }
    Long[] ids = new Long[leases.size()];
    Integer[] attempts = new Integer[leases.size()];
    int k = 0;
    for (Lease l : leases) {
      ids[k] = l.instanceId();
      attempts[k++] = l.attempt();
    }
    // Joined with unnest, the expected status a join column: see idTable(ids, expected).
    Table<?> held =
        DSL.table(
            "unnest({0}::bigint[], {1}::int[], {2}::varchar[]) as held(id, attempt, expected)",
            DSL.val(ids), DSL.val(attempts), DSL.val(repeated(InstanceStatus.RUNNING, ids.length)));
    return new HashSet<>(
        dsl.update(TASK_INSTANCE)
            .set(TASK_INSTANCE.LEASE_UNTIL, nowPlus(TASK_INSTANCE.TIMEOUT_MS))
            .set(TASK_INSTANCE.UPDATED_AT, NOW)
            .from(held)
            .where(TASK_INSTANCE.ID.eq(DSL.field(DSL.name("held", "id"), Long.class)))
            .and(TASK_INSTANCE.ATTEMPT.eq(DSL.field(DSL.name("held", "attempt"), Integer.class)))
            .and(TASK_INSTANCE.STATUS.eq(DSL.field(DSL.name("held", "expected"), String.class)))
            .and(TASK_INSTANCE.WORKER_ID.eq(workerId))
            .returning(TASK_INSTANCE.ID)
            .fetch(TASK_INSTANCE.ID));
  }

  /**
   * Writes the end of an attempt, fenced by {@code attempt}: returns {@code false} and changes
   * nothing when the attempt is stale (a zombie worker) or the row is no longer RUNNING. A batch of
   * one for {@link #completeAll}, so that there is one way to write an end.
   */
  public boolean complete(Lease lease, Outcome outcome, String actor) {
    return completeAll(List.of(new Completion(lease, outcome)), actor).contains(lease);
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
  public Set<Lease> completeAll(List<Completion> completions, String actor) {
    if (completions.isEmpty()) {
      return Set.of();
    }
    Map<Long, Completion> byId = new java.util.TreeMap<>();
    for (Completion c : completions) {
      InstanceStatus.RUNNING.checkTransition(c.outcome().status());
      if (byId.put(c.lease().instanceId(), c) != null) {
        throw new IllegalArgumentException(
            "instance " + c.lease().instanceId() + " appears twice in one completeAll batch");
      }
    }
    for (int tried = 1; ; tried++) {
      try {
        return completeIn(dsl, byId, actor);
      } catch (org.jooq.exception.DataAccessException e) {
        if (tried >= DEADLOCK_TRIES || !"40P01".equals(e.sqlState())) {
          throw e;
        }
        log.info("completeAll was a deadlock victim (try {}); running it again", tried);
      }
    }
  }

  private static Set<Lease> completeIn(DSLContext dsl, Map<Long, Completion> byId, String actor) {
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
    int k = 0;
    for (Completion c : byId.values()) {
      Outcome o = c.outcome();
      boolean success = o.status() == InstanceStatus.SUCCESS;
      ids[k] = c.lease().instanceId();
      attempts[k] = c.lease().attempt();
      statuses[k] = o.status().name();
      summaries[k] = success ? o.summary() : null;
      truncated[k] = success && o.truncated();
      uris[k] = success ? o.uri() : null;
      reasons[k] = o.reason();
      nonRetryable[k++] = o.nonRetryable();
    }
    // One statement: the ends and their events as data-modifying CTEs (one round trip, no event
    // arrays); only a row the fenced update wrote gets an event. The expected status is a join
    // column (v.expected), not a literal: see idTable(ids, expected).
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
                    + " ELSE t.finished_at END"
                    + " FROM unnest({0}::bigint[], {1}::int[], {2}::varchar[], {3}::text[],"
                    + " {4}::boolean[], {5}::text[], {6}::text[], {7}::boolean[], {11}::varchar[])"
                    + " AS v(id, attempt, status, summary, truncated, uri, reason, non_retryable,"
                    + " expected)"
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
                DSL.val(repeated(InstanceStatus.RUNNING, n)))
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
    return casFrom(
        lease.instanceId(),
        InstanceStatus.RUNNING,
        lease.attempt(),
        InstanceStatus.PENDING,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.LEASE_UNTIL, (Instant) null)
                .set(TASK_INSTANCE.WORKER_ID, (String) null)
                .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null));
  }

  // ---------------------------------------------------------------- generic CAS

  /** Extra columns a transition sets besides status and updated_at. */
  @FunctionalInterface
  public interface Changes {
    org.jooq.UpdateSetMoreStep<TaskInstanceRecord> apply(
        org.jooq.UpdateSetMoreStep<TaskInstanceRecord> update);
  }

  /**
   * The one compare-and-set every other change is built on: {@code UPDATE ... SET status = to WHERE
   * id = ? AND status = from [AND attempt = ?]}, checked against the state machine first, with its
   * event row in the same transaction. Returns {@code false} when another actor won.
   *
   * @param attempt the fencing attempt, or {@code null} when the caller does not hold a claim
   */
  public boolean casFrom(
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason,
      Changes changes) {
    from.checkTransition(to);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Condition where = TASK_INSTANCE.ID.eq(id).and(TASK_INSTANCE.STATUS.eq(from.name()));
          if (attempt != null) {
            where = where.and(TASK_INSTANCE.ATTEMPT.eq(attempt));
          }
          var update =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.STATUS, to.name())
                  .set(TASK_INSTANCE.UPDATED_AT, NOW);
          if (to.isFinished()) {
            update = update.set(TASK_INSTANCE.FINISHED_AT, NOW);
          }
          Optional<Instance> changed =
              changes
                  .apply(update)
                  .where(where)
                  .returning()
                  .fetchOptional()
                  .map(InstanceStore::toInstance);
          changed.ifPresent(
              i -> insertEvents(tx, List.of(transitionEvent(i, from, actor, reason))));
          return changed.isPresent();
        });
  }

  /** {@link #casFrom} with no extra columns. */
  public boolean transition(
      long id,
      InstanceStatus from,
      Integer attempt,
      InstanceStatus to,
      String actor,
      String reason) {
    return casFrom(id, from, attempt, to, actor, reason, u -> u);
  }

  // ---------------------------------------------------------------- retry side

  /**
   * Moves RUNNING instances whose lease expired (database time) to TIMEOUT, at most {@code limit},
   * skipping rows another scanner holds. Returns the instances moved.
   */
  public List<Instance> expireLeases(int limit, String actor) {
    return bulkMove(
        InstanceStatus.RUNNING,
        InstanceStatus.TIMEOUT,
        TASK_INSTANCE.LEASE_UNTIL.lt(NOW),
        TASK_INSTANCE.LEASE_UNTIL,
        limit,
        actor,
        i -> "lease expired at " + i.leaseUntil() + " (worker " + i.workerId() + ")",
        u -> u.set(TASK_INSTANCE.FAIL_REASON, "lease expired: the worker died or froze"));
  }

  /**
   * Moves RETRY_WAIT instances whose {@code next_attempt_at} has come to PENDING, {@code
   * retry_count + 1}, undispatched; at most {@code limit}, oldest due first.
   */
  public List<Instance> promoteDueRetries(int limit, String actor) {
    return bulkMove(
        InstanceStatus.RETRY_WAIT,
        InstanceStatus.PENDING,
        TASK_INSTANCE.NEXT_ATTEMPT_AT.le(NOW),
        TASK_INSTANCE.NEXT_ATTEMPT_AT,
        limit,
        actor,
        i -> "retry " + i.retryCount() + " of " + i.maxRetry() + " due",
        u ->
            u.set(TASK_INSTANCE.RETRY_COUNT, TASK_INSTANCE.RETRY_COUNT.plus(1))
                .set(TASK_INSTANCE.DISPATCHED_AT, (Instant) null));
  }

  private interface Reason {
    String of(Instance moved);
  }

  private List<Instance> bulkMove(
      InstanceStatus from,
      InstanceStatus to,
      Condition due,
      Field<Instant> order,
      int limit,
      String actor,
      Reason reason,
      Changes changes) {
    from.checkTransition(to);
    if (limit <= 0) {
      return List.of();
    }
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          // Lock and fetch the ids first: as a sub-select of the UPDATE, PostgreSQL may rescan a
          // LIMIT ... SKIP LOCKED query and move more than `limit` rows.
          Long[] picked =
              tx.select(TASK_INSTANCE.ID)
                  .from(TASK_INSTANCE)
                  .where(statusIs(TASK_INSTANCE.STATUS, from))
                  .and(due)
                  .orderBy(order, TASK_INSTANCE.ID)
                  .limit(limit)
                  .forUpdate()
                  .skipLocked()
                  .fetchArray(TASK_INSTANCE.ID);
          if (picked.length == 0) {
            return List.<Instance>of();
          }
          var update =
              tx.update(TASK_INSTANCE)
                  .set(TASK_INSTANCE.STATUS, to.name())
                  .set(TASK_INSTANCE.UPDATED_AT, NOW);
          List<Instance> moved =
              changes
                  .apply(update)
                  .from(idTable(List.of(picked)))
                  .where(TASK_INSTANCE.ID.eq(ID_COLUMN))
                  .and(TASK_INSTANCE.STATUS.eq(from.name()))
                  .returning()
                  .fetch()
                  .map(InstanceStore::toInstance);
          insertEvents(
              tx, moved.stream().map(i -> transitionEvent(i, from, actor, reason.of(i))).toList());
          return moved;
        });
  }

  /** FAILED and TIMEOUT instances awaiting the retry decision, oldest first. */
  public List<Instance> awaitingDecision(int limit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(
            statusIn(TASK_INSTANCE.STATUS, List.of(InstanceStatus.FAILED, InstanceStatus.TIMEOUT)))
        .orderBy(TASK_INSTANCE.UPDATED_AT, TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceStore::toInstance);
  }

  /** FAILED/TIMEOUT → RETRY_WAIT, fenced by attempt, stamping the time and the policy version. */
  public boolean scheduleRetry(
      Instance failed, Instant nextAttemptAt, Long policyVersion, String actor, String reason) {
    return casFrom(
        failed.id(),
        failed.status(),
        failed.attempt(),
        InstanceStatus.RETRY_WAIT,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.NEXT_ATTEMPT_AT, nextAttemptAt)
                .set(TASK_INSTANCE.POLICY_VERSION, policyVersion));
  }

  /** FAILED/TIMEOUT → DEAD, fenced by attempt. */
  public boolean markDead(Instance failed, Long policyVersion, String actor, String reason) {
    return casFrom(
        failed.id(),
        failed.status(),
        failed.attempt(),
        InstanceStatus.DEAD,
        actor,
        reason,
        u ->
            u.set(TASK_INSTANCE.POLICY_VERSION, policyVersion)
                .set(TASK_INSTANCE.FAIL_REASON, Outcome.clip(reason)));
  }

  // ---------------------------------------------------------------- dispatch

  /**
   * PENDING instances that need publishing: never dispatched and unchanged for {@code
   * undispatchedAfter}, or dispatched more than {@code redispatchAfter} ago and still PENDING.
   * Oldest first.
   *
   * @param undispatchedAfter how long a row may wait unstamped before it counts as stranded: a row
   *     just created is normally being published right now (its message is in the publisher's queue
   *     or its stamp skipped a claim in flight), and publishing it again only makes a duplicate
   *     message
   */
  public List<Instance> undispatched(
      Duration undispatchedAfter, Duration redispatchAfter, int limit) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING))
        .and(
            TASK_INSTANCE
                .DISPATCHED_AT
                .isNull()
                .and(TASK_INSTANCE.UPDATED_AT.le(nowMinus(undispatchedAfter)))
                .or(TASK_INSTANCE.DISPATCHED_AT.lt(nowMinus(redispatchAfter))))
        .orderBy(TASK_INSTANCE.DISPATCHED_AT.asc().nullsFirst(), TASK_INSTANCE.ID)
        .limit(limit)
        .fetch()
        .map(InstanceStore::toInstance);
  }

  /**
   * Stamps {@code dispatched_at} on the instances among {@code ids} that are still PENDING, after
   * their ids were acknowledged by Kafka, so that the stranded-PENDING sweep leaves them alone.
   *
   * <p>Rows locked by another transaction are skipped ({@code FOR UPDATE SKIP LOCKED}) rather than
   * waited for: during a burst that transaction is almost always a worker's claim, after which the
   * row is no longer PENDING and needs no stamp. Waiting would serialize the trigger's publishing
   * behind the workers' claims. A row skipped for another reason keeps a null stamp and is
   * published again by a later sweep, which costs a duplicate message (its claim is lost), not a
   * lost run.
   *
   * @return the rows stamped
   */
  public int markDispatched(Collection<Long> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return dsl.update(TASK_INSTANCE)
        .set(TASK_INSTANCE.DISPATCHED_AT, NOW)
        .where(
            TASK_INSTANCE.ID.in(
                DSL.select(TASK_INSTANCE.ID)
                    .from(TASK_INSTANCE)
                    .join(idTable(ids))
                    .on(TASK_INSTANCE.ID.eq(ID_COLUMN))
                    .where(TASK_INSTANCE.STATUS.eq(InstanceStatus.PENDING.name()))
                    .forUpdate()
                    .of(TASK_INSTANCE)
                    .skipLocked()))
        .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.PENDING.name()))
        .execute();
  }

  // ---------------------------------------------------------------- reads

  public Optional<Instance> find(long id) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.ID.eq(id))
        .fetchOptional()
        .map(InstanceStore::toInstance);
  }

  public Optional<Instance> findByWindow(String taskId, String windowKey) {
    return dsl.selectFrom(TASK_INSTANCE)
        .where(TASK_INSTANCE.TASK_ID.eq(taskId))
        .and(TASK_INSTANCE.WINDOW_KEY.eq(windowKey))
        .fetchOptional()
        .map(InstanceStore::toInstance);
  }

  /** Instances filtered for operators; any filter may be null. Newest first. */
  public List<Instance> list(String taskId, InstanceStatus status, Instant since, int limit) {
    Condition c = DSL.noCondition();
    if (taskId != null) {
      c = c.and(TASK_INSTANCE.TASK_ID.eq(taskId));
    }
    if (status != null) {
      c = c.and(TASK_INSTANCE.STATUS.eq(status.name()));
    }
    if (since != null) {
      c = c.and(TASK_INSTANCE.SCHEDULED_AT.ge(since));
    }
    return dsl.selectFrom(TASK_INSTANCE)
        .where(c)
        .orderBy(TASK_INSTANCE.SCHEDULED_AT.desc(), TASK_INSTANCE.ID.desc())
        .limit(limit)
        .fetch()
        .map(InstanceStore::toInstance);
  }

  /**
   * The events of one live instance, oldest first. Read through its window, the one index of the
   * event table besides its key: an index on {@code instance_id} cost every event write (three per
   * run) about 5 % of PostgreSQL's work in a burst, for reads like this one that the window index
   * serves as well.
   */
  public List<InstanceEvent> events(long instanceId) {
    return dsl.select(INSTANCE_EVENT.fields())
        .from(INSTANCE_EVENT)
        .join(TASK_INSTANCE)
        .on(INSTANCE_EVENT.TASK_ID.eq(TASK_INSTANCE.TASK_ID))
        .and(INSTANCE_EVENT.WINDOW_KEY.eq(TASK_INSTANCE.WINDOW_KEY))
        .where(TASK_INSTANCE.ID.eq(instanceId))
        .and(INSTANCE_EVENT.INSTANCE_ID.eq(instanceId))
        .orderBy(INSTANCE_EVENT.ID)
        .fetchInto(INSTANCE_EVENT)
        .map(InstanceStore::toEvent);
  }

  /** Every event about one window, including decisions that created nothing. */
  public List<InstanceEvent> windowEvents(String taskId, String windowKey) {
    return dsl.selectFrom(INSTANCE_EVENT)
        .where(INSTANCE_EVENT.TASK_ID.eq(taskId))
        .and(INSTANCE_EVENT.WINDOW_KEY.eq(windowKey))
        .orderBy(INSTANCE_EVENT.ID)
        .fetch()
        .map(InstanceStore::toEvent);
  }

  /** Counts instances by status, for metrics and tests. */
  public java.util.Map<InstanceStatus, Integer> countByStatus(String taskId) {
    Condition c = taskId == null ? DSL.noCondition() : TASK_INSTANCE.TASK_ID.eq(taskId);
    java.util.Map<InstanceStatus, Integer> counts = new java.util.EnumMap<>(InstanceStatus.class);
    dsl.select(TASK_INSTANCE.STATUS, DSL.count())
        .from(TASK_INSTANCE)
        .where(c)
        .groupBy(TASK_INSTANCE.STATUS)
        .fetch()
        .forEach(r -> counts.put(InstanceStatus.valueOf(r.value1()), r.value2()));
    return counts;
  }

  // ---------------------------------------------------------------- mapping

  private record EventRow(
      Long instanceId,
      String taskId,
      String windowKey,
      InstanceEvent.Kind kind,
      InstanceStatus from,
      InstanceStatus to,
      Integer attempt,
      String actor,
      String reason) {}

  static final Field<Long> ID_COLUMN = DSL.field(DSL.name("ids", "id"), Long.class);
  static final Field<String> EXPECTED_COLUMN = DSL.field(DSL.name("ids", "expected"), String.class);

  /**
   * The ids as a table {@code ids(id)} to join with. Why not {@code id = ANY(?)}: the planner may
   * then scan a partial status index and test every row against the whole array, which costs (rows
   * × ids). That is what it does when the statistics still say that few rows are PENDING, i.e. at
   * the start of a burst, and a 1,000-id claim then took seconds.
   */
  static Table<?> idTable(Collection<Long> ids) {
    return DSL.table("unnest({0}::bigint[]) as ids(id)", DSL.val(ids.toArray(Long[]::new)));
  }

  /**
   * The ids as a table {@code ids(id, expected)} for a compare-and-set: join with {@code id =
   * ids.id AND status = ids.expected}, where {@code expected} is the status every row must still
   * have. The expected status is a join column, not a literal or a bound value, on purpose: as a
   * filter on {@code task_instance} its row estimate comes from the statistics, which lag a burst
   * by up to a minute (autovacuum's naptime) and on a fresh table say ~1 row. With that estimate
   * the planner drove an end of 283 rows from the partial RUNNING index, or a scan, in a nested
   * loop that compared every row with every id (the bench's steady run: 79,806 pairs for that end;
   * ~100 ms of every second in ends), and hashed all 10,000-20,000 PENDING rows for every claim of
   * a burst. As a join column it leaves the table's estimate at the whole table, so the choices are
   * a primary-key probe per id or, for a batch that is a large part of the table, one hash join:
   * linear either way; the worker's sessions leave only the probe ({@link
   * Database#PRIMARY_KEY_PLANS}).
   */
  static Table<?> idTable(Collection<Long> ids, InstanceStatus expected) {
    return DSL.table(
        "unnest({0}::bigint[], {1}::varchar[]) as ids(id, expected)",
        DSL.val(ids.toArray(Long[]::new)), DSL.val(repeated(expected, ids.size())));
  }

  /**
   * {@code column IN (...)} with the statuses as SQL literals, not bind values, for the scans that
   * a partial index serves ({@code WHERE status = 'RUNNING'} and the like, migration V1).
   * PostgreSQL matches an index predicate only against constants: after five executions a prepared
   * statement may switch to a cached generic plan, which cannot prove that {@code status = $1}
   * implies the predicate, so it scans the table instead, and it is chosen exactly when the
   * statistics say the table is small, i.e. right after a burst. The dependency releaser's
   * newest-completion read took 12 ms a call that way. The statuses are enum names, never input.
   */
  static Condition statusIn(Field<String> column, Collection<InstanceStatus> statuses) {
    return column.in(statuses.stream().map(st -> DSL.inline(st.name())).toList());
  }

  /** {@code column = 'STATUS'} as a literal, for the reason given at {@link #statusIn}. */
  static Condition statusIs(Field<String> column, InstanceStatus status) {
    return column.eq(DSL.inline(status.name()));
  }

  /** {@code n} copies of {@code status}: the expected-status column of an unnest batch. */
  private static String[] repeated(InstanceStatus status, int n) {
    String[] column = new String[n];
    java.util.Arrays.fill(column, status.name());
    return column;
  }

  private static EventRow transitionEvent(
      Instance after, InstanceStatus from, String actor, String reason) {
    return new EventRow(
        after.id(),
        after.taskId(),
        after.windowKey(),
        InstanceEvent.Kind.TRANSITION,
        from,
        after.status(),
        after.attempt(),
        actor,
        reason);
  }

  /**
   * {@code name AS (INSERT INTO instance_event ... SELECT ... FROM rows)}: one event for each row a
   * data-modifying CTE of the same statement wrote, so that only a written row gets one.
   *
   * @param rows a CTE returning at least {@code id}, {@code task_id} and {@code window_key}
   */
  private static CommonTableExpression<?> eventsOf(
      DSLContext ctx,
      String name,
      CommonTableExpression<?> rows,
      InstanceEvent.Kind kind,
      Field<String> from,
      Field<String> to,
      Field<Integer> attempt,
      String actor,
      Field<String> reason) {
    return DSL.name(name)
        .as(
            insertEvent(ctx)
                .select(
                    DSL.select(
                            rows.field(TASK_INSTANCE.ID),
                            rows.field(TASK_INSTANCE.TASK_ID),
                            rows.field(TASK_INSTANCE.WINDOW_KEY),
                            DSL.val(kind.name()),
                            from,
                            to,
                            attempt,
                            DSL.val(actor),
                            reason)
                        .from(rows))
                .returningResult(INSTANCE_EVENT.ID));
  }

  /** {@code INSERT INTO instance_event} with the columns every event write sets. */
  private static InsertValuesStep9<
          InstanceEventRecord,
          Long,
          String,
          String,
          String,
          String,
          String,
          Integer,
          String,
          String>
      insertEvent(DSLContext ctx) {
    return ctx.insertInto(
        INSTANCE_EVENT,
        INSTANCE_EVENT.INSTANCE_ID,
        INSTANCE_EVENT.TASK_ID,
        INSTANCE_EVENT.WINDOW_KEY,
        INSTANCE_EVENT.KIND,
        INSTANCE_EVENT.FROM_STATUS,
        INSTANCE_EVENT.TO_STATUS,
        INSTANCE_EVENT.ATTEMPT,
        INSTANCE_EVENT.ACTOR,
        INSTANCE_EVENT.REASON);
  }

  private static void insertEvents(DSLContext tx, List<EventRow> events) {
    if (events.isEmpty()) {
      return;
    }
    // As for instances: one array bind value per column, however many events.
    int n = events.size();
    Long[] instanceIds = new Long[n];
    String[] taskIds = new String[n];
    String[] keys = new String[n];
    String[] kinds = new String[n];
    String[] froms = new String[n];
    String[] tos = new String[n];
    Integer[] attempts = new Integer[n];
    String[] actors = new String[n];
    String[] reasons = new String[n];
    for (int k = 0; k < n; k++) {
      EventRow e = events.get(k);
      instanceIds[k] = e.instanceId();
      taskIds[k] = e.taskId();
      keys[k] = e.windowKey();
      kinds[k] = e.kind().name();
      froms[k] = e.from() == null ? null : e.from().name();
      tos[k] = e.to() == null ? null : e.to().name();
      attempts[k] = e.attempt();
      actors[k] = e.actor();
      reasons[k] = e.reason();
    }
    Table<?> t =
        DSL.table(
            "unnest({0}::bigint[], {1}::varchar[], {2}::varchar[], {3}::varchar[],"
                + " {4}::varchar[], {5}::varchar[], {6}::int[], {7}::varchar[], {8}::text[])"
                + " as t(instance_id, task_id, window_key, kind, from_status, to_status,"
                + " attempt, actor, reason)",
            DSL.val(instanceIds),
            DSL.val(taskIds),
            DSL.val(keys),
            DSL.val(kinds),
            DSL.val(froms),
            DSL.val(tos),
            DSL.val(attempts),
            DSL.val(actors),
            DSL.val(reasons));
    insertEvent(tx)
        .select(
            DSL.select(
                    DSL.field(DSL.name("t", "instance_id"), Long.class),
                    DSL.field(DSL.name("t", "task_id"), String.class),
                    DSL.field(DSL.name("t", "window_key"), String.class),
                    DSL.field(DSL.name("t", "kind"), String.class),
                    DSL.field(DSL.name("t", "from_status"), String.class),
                    DSL.field(DSL.name("t", "to_status"), String.class),
                    DSL.field(DSL.name("t", "attempt"), Integer.class),
                    DSL.field(DSL.name("t", "actor"), String.class),
                    DSL.field(DSL.name("t", "reason"), String.class))
                .from(t))
        .execute();
  }

  static Instance toInstance(Record r) {
    TaskInstanceRecord t = r.into(TASK_INSTANCE);
    return new Instance(
        t.getId(),
        t.getTaskId(),
        t.getWindowKey(),
        t.getWindowStart(),
        t.getWindowEnd(),
        t.getScheduledAt(),
        InstanceStatus.valueOf(t.getStatus()),
        t.getAttempt(),
        t.getRetryCount(),
        t.getMaxRetry(),
        t.getNextAttemptAt(),
        t.getLeaseUntil(),
        Duration.ofMillis(t.getTimeoutMs()),
        t.getWorkerId(),
        Origin.valueOf(t.getOrigin()),
        t.getNonRetryable(),
        t.getPolicyVersion(),
        t.getResultSummary(),
        t.getResultTruncated(),
        t.getResultUri(),
        t.getFailReason(),
        t.getStartedAt(),
        t.getFinishedAt(),
        t.getDispatchedAt(),
        t.getCreatedAt(),
        t.getUpdatedAt());
  }

  static InstanceEvent toEvent(InstanceEventRecord e) {
    return new InstanceEvent(
        e.getId(),
        e.getInstanceId(),
        e.getTaskId(),
        e.getWindowKey(),
        InstanceEvent.Kind.valueOf(e.getKind()),
        e.getFromStatus() == null ? null : InstanceStatus.valueOf(e.getFromStatus()),
        e.getToStatus() == null ? null : InstanceStatus.valueOf(e.getToStatus()),
        e.getAttempt(),
        e.getActor(),
        e.getReason(),
        e.getCreatedAt());
  }
}
