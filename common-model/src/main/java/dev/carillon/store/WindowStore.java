package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record1;
import org.jooq.Record4;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Where windows become instances: every path that creates one (the trigger's ticks, its dependency,
 * event and condition triggers, backfills) writes through here, with the decisions that created
 * nothing, the trigger's cursors, and the {@code dispatched_at} stamp of the rows once their ids
 * are published. Every insert lets the UNIQUE {@code (task_id, window_key)} index decide ({@code ON
 * CONFLICT DO NOTHING}), never check-then-insert, and writes the CREATED event of each row it
 * created in the same statement.
 *
 * <p>The trigger's writes are leader-only and carry its {@link Fence}: each statement is applied
 * only while the fence is current, and a write refused for that reason throws {@link
 * FencedException} with nothing written. Operators' paths (backfills, {@code schedctl}'s stamps)
 * are not leader writes and use the overloads without a fence.
 *
 * <p>Thread-safe; every method runs in its own transaction.
 */
public final class WindowStore {
  private final DSLContext dsl;

  public WindowStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Inserts the rows whose {@code (task_id, window_key)} is new, in one statement, and returns
   * exactly those; a window that exists is left untouched. Never check-then-insert: the UNIQUE
   * index decides.
   */
  public List<Instance> create(List<NewInstance> rows, String actor) {
    if (rows.isEmpty()) {
      return List.of();
    }
    return dsl.transactionResult(cfg -> insertIn(DSL.using(cfg), rows, actor, null));
  }

  /**
   * {@link #create(List, String)} by a leader (the dependency, event and condition triggers): the
   * insert is applied only while {@code fence} is current.
   *
   * @throws FencedException when {@code fence} is no longer current; nothing was inserted
   */
  public List<Instance> create(List<NewInstance> rows, String actor, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    if (rows.isEmpty()) {
      return List.of();
    }
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Instance> created = insertIn(tx, rows, actor, fence);
          if (created.isEmpty()) {
            Fences.checkAfterNoOp(tx, fence, "insert of " + rows.size() + " window(s)");
          }
          return created;
        });
  }

  /**
   * Inserts one run-now row whose {@code (task_id, window_key)} is new, with the params it
   * overrides, in one transaction: no worker can claim it before its override is there. Empty when
   * the window exists (the UNIQUE index decides; the existing row is left untouched).
   *
   * @param paramsOverride a JSON object, already checked, or null for none
   */
  public Optional<Instance> createRun(NewInstance row, String paramsOverride, String actor) {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Instance> created = insertIn(tx, List.of(row), actor, null);
          if (created.isEmpty()) {
            return Optional.<Instance>empty();
          }
          Instance i = created.get(0);
          if (paramsOverride == null) {
            return Optional.of(i);
          }
          tx.update(TASK_INSTANCE)
              .set(TASK_INSTANCE.PARAMS_OVERRIDE, paramsOverride)
              .where(TASK_INSTANCE.ID.eq(i.id()))
              .execute();
          return Optional.of(i.withParamsOverride(paramsOverride));
        });
  }

  /**
   * One trigger tick, atomically: inserts the new windows (the UNIQUE index decides), logs the
   * decisions that created nothing, and moves each task's cursor forward (never backwards, so two
   * leaders in a split brain cannot rewind each other), with the offset recorded for the instant
   * kept. Every statement is applied only while {@code fence} is current.
   *
   * @throws FencedException when {@code fence} is no longer current; nothing of the tick was
   *     written
   */
  public List<Instance> commitTick(
      List<NewInstance> rows,
      List<Decision> decisions,
      Map<String, TriggerCursor> cursors,
      String actor,
      Fence fence) {
    Objects.requireNonNull(fence, "fence");
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          List<Instance> created = insertIn(tx, rows, actor, fence);
          if (!decisions.isEmpty()) {
            // The decisions' statement coalesces repeats (an update or an insert per decision), so
            // the fence is taken first: its share lock holds until this transaction ends.
            Fences.lockCurrent(tx, fence, "tick commit");
            EventRows.insertDecisions(tx, decisions);
          }
          if (cursors.isEmpty()) {
            if (created.size() < rows.size()) {
              Fences.checkAfterNoOp(tx, fence, "tick commit");
            }
          } else {
            String[] ids = new String[cursors.size()];
            Long[] until = new Long[cursors.size()];
            Integer[] offsets = new Integer[cursors.size()];
            int k = 0;
            // Sorted, so that two leaders in a split brain lock cursor rows in the same order.
            for (Map.Entry<String, TriggerCursor> c : new TreeMap<>(cursors).entrySet()) {
              ids[k] = c.getKey();
              until[k] = micros(c.getValue().evaluatedUntil());
              ZoneOffset offset = c.getValue().offset();
              offsets[k++] = offset == null ? null : offset.getTotalSeconds();
            }
            Table<?> t =
                DSL.table(
                    "unnest({0}::varchar[], {1}::bigint[], {2}::int[])"
                        + " as t(task_id, evaluated_until_us, offset_seconds)",
                    DSL.val(ids), DSL.val(until), DSL.val(offsets));
            // The offset belongs to the instant: it changes only with an instant that moves on.
            int moved =
                tx.insertInto(
                        TRIGGER_CURSOR,
                        TRIGGER_CURSOR.TASK_ID,
                        TRIGGER_CURSOR.EVALUATED_UNTIL,
                        TRIGGER_CURSOR.EVALUATED_OFFSET_SECONDS)
                    .select(
                        DSL.select(
                                DSL.field(DSL.name("t", "task_id"), String.class),
                                fromMicros(
                                    DSL.field(DSL.name("t", "evaluated_until_us"), Long.class)),
                                DSL.field(DSL.name("t", "offset_seconds"), Integer.class))
                            .from(t)
                            .where(Fences.current(fence)))
                    .onConflict(TRIGGER_CURSOR.TASK_ID)
                    .doUpdate()
                    .set(
                        TRIGGER_CURSOR.EVALUATED_OFFSET_SECONDS,
                        DSL.when(
                                DSL.excluded(TRIGGER_CURSOR.EVALUATED_UNTIL)
                                    .ge(TRIGGER_CURSOR.EVALUATED_UNTIL),
                                DSL.excluded(TRIGGER_CURSOR.EVALUATED_OFFSET_SECONDS))
                            .otherwise(TRIGGER_CURSOR.EVALUATED_OFFSET_SECONDS))
                    .set(
                        TRIGGER_CURSOR.EVALUATED_UNTIL,
                        DSL.greatest(
                            TRIGGER_CURSOR.EVALUATED_UNTIL,
                            DSL.excluded(TRIGGER_CURSOR.EVALUATED_UNTIL)))
                    .set(TRIGGER_CURSOR.UPDATED_AT, Sql.NOW)
                    .execute();
            // An upsert writes every row it is given, unless the fence stopped it; then the
            // transaction is rolled back whole, windows and decisions included.
            if (moved < cursors.size()) {
              throw new FencedException(fence, "tick commit");
            }
          }
          return created;
        });
  }

  /** Inserts {@code rows}; with a {@code fence}, only while it is current. */
  private static List<Instance> insertIn(
      DSLContext tx, List<NewInstance> rows, String actor, Fence fence) {
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
                                DSL.when(status.eq(InstanceStatus.SKIPPED.name()), Sql.NOW)
                                    .else_(DSL.val((Instant) null, SQLDataType.INSTANT)))
                            .from(t)
                            .where(fence == null ? DSL.noCondition() : Fences.current(fence)))
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
        EventRows.eventsOf(
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
    Map<String, NewInstance> out = new HashMap<>(rows.size() * 2);
    for (NewInstance r : rows) {
      out.putIfAbsent(r.taskId() + "/" + r.window().key(), r);
    }
    return out;
  }

  /**
   * A freshly inserted row as an {@link Instance}, built from what was inserted plus the columns
   * only the database knows. Reading all 28 columns back made up most of the client's work in a
   * large tick (PostgreSQL formats every timestamp as text, jOOQ parses and copies it twice). The
   * inserted timestamps are exactly the whole microseconds that were sent ({@link #micros}); every
   * column the insert leaves to its default is as {@code V1__instances.sql} sets it, and {@code
   * created_at}, {@code updated_at} and a SKIPPED row's {@code finished_at} all hold the
   * transaction's {@code now()}. {@code WindowStoreTickTest} compares the result with the row.
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
        now,
        null,
        null,
        null);
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

  /**
   * Writes decisions that changed no row to the event log, in one statement, while {@code fence} is
   * current; a decision repeating the latest event of its window is counted on that row ({@link
   * EventRows#insertDecisions}).
   *
   * @throws FencedException when {@code fence} is no longer current; nothing was written
   */
  public void recordDecisions(List<Decision> decisions, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    if (decisions.isEmpty()) {
      return;
    }
    dsl.transaction(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Fences.lockCurrent(tx, fence, "record of " + decisions.size() + " decision(s)");
          EventRows.insertDecisions(tx, decisions);
        });
  }

  /**
   * Runs a finished window again, as the dependency trigger does when the window's upstreams
   * succeeded again after it finished: {@code → PENDING}, fenced by the status and attempt of
   * {@code seen}, with the changes of an operator's re-run ({@link OperatorStore#rerun}).
   *
   * @param seen the instance as the caller read it
   * @param fence the dependency trigger's leader fence
   * @return the instance as the re-run left it, or empty when it changed meanwhile (nothing was
   *     written)
   * @throws dev.carillon.model.instance.IllegalTransitionException when {@code seen} is not
   *     finished
   * @throws FencedException when {@code fence} is no longer current; nothing was written
   */
  public Optional<Instance> rerun(Instance seen, String actor, String reason, Fence fence) {
    Objects.requireNonNull(seen, "seen");
    Objects.requireNonNull(fence, "fence");
    return CompareAndSet.rerun(dsl, seen, actor, reason, CompareAndSet.AfterMove.NONE, fence);
  }

  /**
   * PENDING instances that need publishing: never dispatched and unchanged for {@code
   * undispatchedAfter}, or dispatched more than {@code redispatchAfter} ago, still PENDING, and
   * served by some live worker (an instance no worker serves waits in its queue's topic and is not
   * published again until one does; see {@code RetryStore}), and due by the database's clock.
   * Oldest first.
   *
   * @param undispatchedAfter how long a row may wait unstamped before it counts as stranded: a row
   *     just created is normally being published right now (its message is in the publisher's queue
   *     or its stamp skipped a claim in flight), and publishing it again only makes a duplicate
   *     message
   */
  public List<Instance> undispatched(
      Duration undispatchedAfter, Duration redispatchAfter, int limit) {
    return undispatched(undispatchedAfter, redispatchAfter, limit, Undispatched.SCAN_LIMIT);
  }

  /** As above, reading at most {@code scanLimit} never-dispatched entries (tests set it low). */
  List<Instance> undispatched(
      Duration undispatchedAfter, Duration redispatchAfter, int limit, int scanLimit) {
    return Undispatched.read(
        dsl,
        scanLimit,
        limit,
        // Created ahead of its fire time: the dispatcher holds it until then, and a worker would
        // refuse it before.
        first ->
            first
                .field(TASK_INSTANCE.SCHEDULED_AT)
                .le(Sql.NOW)
                .and(first.field(TASK_INSTANCE.UPDATED_AT).le(Sql.ago(undispatchedAfter))),
        TASK_INSTANCE
            .SCHEDULED_AT
            .le(Sql.NOW)
            .and(TASK_INSTANCE.DISPATCHED_AT.lt(Sql.ago(redispatchAfter)))
            .and(Serving.servable(TASK_INSTANCE.TASK_ID)));
  }

  /**
   * How long the longest-waiting undispatched PENDING instance has waited since it became PENDING
   * (database time), or empty when there is none: the dispatch backlog's age, which grows while
   * Kafka is away. Measured from {@code updated_at}, as the sweep's grace is: a window re-queued by
   * a retry or a lost lease keeps its old {@code created_at}, and counting from that made a
   * 300-second Kafka outage report backlogs 500 to 1,500 s old. Reads the sweeps' bounded search
   * ({@link Undispatched#first}: at most {@link Undispatched#SCAN_LIMIT} entries of the PENDING
   * rows' dispatch index, lowest ids first), so its cost is bounded however deep the backlog; a
   * backlog deeper than that reports the oldest wait among those entries.
   */
  public Optional<Duration> oldestUndispatchedAge() {
    Table<TaskInstanceRecord> first = Undispatched.first(dsl, Undispatched.SCAN_LIMIT);
    return dsl.select(
            DSL.field(
                "extract(epoch from ({0} - min({1})))",
                SQLDataType.DOUBLE, Sql.NOW, first.field(TASK_INSTANCE.UPDATED_AT)))
        .from(first)
        .fetchOptional()
        .map(Record1::value1)
        .map(seconds -> Duration.ofMillis(Math.max(0, Math.round(seconds * 1000))));
  }

  /**
   * Stamps {@code dispatched_at} on the instances among {@code ids} that are still PENDING, after
   * Kafka acknowledged their ids; rows another transaction holds are skipped, not waited for.
   *
   * @return the rows stamped
   */
  public int markDispatched(Collection<Long> ids) {
    return DispatchStamp.mark(dsl, ids, null);
  }

  /**
   * {@link #markDispatched(Collection)} by the trigger's leader: applied only while {@code fence}
   * is current.
   *
   * @throws FencedException when {@code fence} is no longer current; nothing was stamped
   */
  public int markDispatched(Collection<Long> ids, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    int stamped = DispatchStamp.mark(dsl, ids, fence);
    if (stamped == 0 && !ids.isEmpty()) {
      Fences.checkAfterNoOp(dsl, fence, "dispatch stamp of " + ids.size() + " instance(s)");
    }
    return stamped;
  }
}
