package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.WORKER_CAPABILITY;
import static dev.carillon.store.jooq.Tables.WORKER_PRESENCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.worker.Coverage;
import dev.carillon.model.worker.WorkerPresence;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStep3;
import org.jooq.Select;
import org.jooq.impl.DSL;

/**
 * The workers' presence rows ({@link WorkerPresence}): each worker registers what it serves at
 * start, refreshes its row while it runs and removes it when it stops; readers see the live ones
 * and count the instances that no live worker can run. All times are the database's.
 *
 * <p>Thread-safe; every method is one statement or one transaction.
 */
public final class PresenceStore {
  /** The live workers and the database time they were read at. */
  public record Snapshot(List<WorkerPresence> workers, Instant at) {
    public Snapshot {
      workers = List.copyOf(workers);
    }
  }

  /**
   * PENDING instances that no live, ready worker serves, for one queue and handler.
   *
   * @param queue the task's queue
   * @param handler the task's handler
   * @param instances how many wait
   */
  public record Waiting(String queue, String handler, int instances) {}

  private final DSLContext dsl;

  public PresenceStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Writes (or replaces) the presence row of {@code workerId} and what it serves, every pair of
   * {@code queues} and {@code handlers}, in one transaction; a worker restarted under the same id
   * replaces what its previous process registered.
   */
  public void register(
      String workerId, Set<String> queues, Set<String> handlers, boolean ready, int freeSlots) {
    dsl.transaction(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          tx.insertInto(WORKER_PRESENCE)
              .set(WORKER_PRESENCE.WORKER_ID, workerId)
              .set(WORKER_PRESENCE.READY, ready)
              .set(WORKER_PRESENCE.FREE_SLOTS, freeSlots)
              .set(WORKER_PRESENCE.STARTED_AT, Sql.NOW)
              .set(WORKER_PRESENCE.LAST_SEEN, Sql.NOW)
              .onConflict(WORKER_PRESENCE.WORKER_ID)
              .doUpdate()
              .set(WORKER_PRESENCE.READY, ready)
              .set(WORKER_PRESENCE.FREE_SLOTS, freeSlots)
              .set(WORKER_PRESENCE.STARTED_AT, Sql.NOW)
              .set(WORKER_PRESENCE.LAST_SEEN, Sql.NOW)
              .execute();
          tx.deleteFrom(WORKER_CAPABILITY)
              .where(WORKER_CAPABILITY.WORKER_ID.eq(workerId))
              .execute();
          InsertValuesStep3<?, String, String, String> rows =
              tx.insertInto(
                  WORKER_CAPABILITY,
                  WORKER_CAPABILITY.WORKER_ID,
                  WORKER_CAPABILITY.QUEUE,
                  WORKER_CAPABILITY.HANDLER);
          boolean any = false;
          for (String q : queues) {
            for (String h : handlers) {
              rows = rows.values(workerId, q, h);
              any = true;
            }
          }
          if (any) {
            rows.execute();
          }
        });
  }

  /**
   * Refreshes the row of {@code workerId}.
   *
   * @return false when the row is gone (removed as expired while this worker was cut off): the
   *     worker registers again
   */
  public boolean refresh(String workerId, boolean ready, int freeSlots) {
    return dsl.update(WORKER_PRESENCE)
            .set(WORKER_PRESENCE.READY, ready)
            .set(WORKER_PRESENCE.FREE_SLOTS, freeSlots)
            .set(WORKER_PRESENCE.LAST_SEEN, Sql.NOW)
            .where(WORKER_PRESENCE.WORKER_ID.eq(workerId))
            .execute()
        > 0;
  }

  /** Removes the row of {@code workerId} and what it serves (the worker stops). */
  public void remove(String workerId) {
    dsl.deleteFrom(WORKER_PRESENCE).where(WORKER_PRESENCE.WORKER_ID.eq(workerId)).execute();
  }

  /** Removes the rows not refreshed for longer than {@code age}; returns how many. */
  public int purge(Duration age) {
    return dsl.deleteFrom(WORKER_PRESENCE)
        .where(WORKER_PRESENCE.LAST_SEEN.lt(Sql.ago(age)))
        .execute();
  }

  /** The workers whose row is live, with what each serves, and the database time of the read. */
  public Snapshot live() {
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = DSL.using(cfg);
          Instant at = tx.select(Sql.NOW).fetchOne(0, Instant.class);
          Map<String, Set<String>> queues = new HashMap<>();
          Map<String, Set<String>> handlers = new HashMap<>();
          tx.select(WORKER_CAPABILITY.WORKER_ID, WORKER_CAPABILITY.QUEUE, WORKER_CAPABILITY.HANDLER)
              .from(WORKER_CAPABILITY)
              .join(WORKER_PRESENCE)
              .on(WORKER_PRESENCE.WORKER_ID.eq(WORKER_CAPABILITY.WORKER_ID))
              .where(WORKER_PRESENCE.LAST_SEEN.gt(Sql.ago(WorkerPresence.EXPIRY)))
              .fetch()
              .forEach(
                  r -> {
                    queues.computeIfAbsent(r.value1(), k -> new HashSet<>()).add(r.value2());
                    handlers.computeIfAbsent(r.value1(), k -> new HashSet<>()).add(r.value3());
                  });
          List<WorkerPresence> out = new ArrayList<>();
          tx.selectFrom(WORKER_PRESENCE)
              .where(WORKER_PRESENCE.LAST_SEEN.gt(Sql.ago(WorkerPresence.EXPIRY)))
              .orderBy(WORKER_PRESENCE.WORKER_ID)
              .fetch()
              .forEach(
                  r ->
                      out.add(
                          new WorkerPresence(
                              r.getWorkerId(),
                              queues.getOrDefault(r.getWorkerId(), Set.of()),
                              handlers.getOrDefault(r.getWorkerId(), Set.of()),
                              r.getReady(),
                              r.getFreeSlots(),
                              r.getStartedAt(),
                              r.getLastSeen())));
          return new Snapshot(out, at);
        });
  }

  /**
   * Why instances of a task in {@code queue} with {@code handler} wait for a worker now ("no worker
   * serves queue gpu with handler summarize (...)"), or empty when a live, ready worker serves
   * them; see {@link Coverage#waitingReason}.
   */
  public Optional<String> whyWaiting(String queue, String handler) {
    Snapshot s = live();
    return Coverage.waitingReason(queue, handler, s.workers(), s.at());
  }

  /**
   * Why {@code instance} waits for a worker, or empty when it is not PENDING, its task has no valid
   * definition, or a live, ready worker serves its task's queue with its handler.
   */
  public Optional<String> whyWaiting(Instance instance, TaskStore tasks) {
    if (instance.status() != InstanceStatus.PENDING) {
      return Optional.empty();
    }
    return tasks.find(instance.taskId()).flatMap(d -> whyWaiting(d.queue(), d.handler()));
  }

  /**
   * PENDING instances that no live, ready worker serves, by queue and handler (tasks without a
   * definition row are not counted: any worker claims those). Reads the PENDING rows, so it is for
   * a periodic gauge, not for every scan.
   *
   * <p>The PENDING rows are counted per queue and handler first and each pair is checked against
   * the workers once: checking every row (three index probes each) made this count 10 µs of
   * PostgreSQL's time per instance of the 100,000 burst (docs/benchmarks.md, "Item 1: where the CPU
   * goes").
   *
   * <p>Before any PENDING row is read, the (queue, handler) pairs the definitions use are listed
   * and checked against the workers ({@link #anyPairUnserved}); when every pair is served, which is
   * the usual case, nothing waits and no instance row is read: counting meant reading the whole
   * PENDING backlog every 15 s, a million rows in a million-instance burst.
   */
  public List<Waiting> waiting() {
    if (!anyPairUnserved()) {
      return List.of();
    }
    var pending =
        dsl.select(TASK_DEFINITION.QUEUE, TASK_DEFINITION.HANDLER, DSL.count().as("pending_count"))
            .from(TASK_INSTANCE)
            .join(TASK_DEFINITION)
            .on(TASK_DEFINITION.TASK_ID.eq(TASK_INSTANCE.TASK_ID))
            .where(Sql.statusIs(TASK_INSTANCE.STATUS, InstanceStatus.PENDING))
            .groupBy(TASK_DEFINITION.QUEUE, TASK_DEFINITION.HANDLER)
            .asTable("pending_pairs");
    Field<String> queue = pending.field(TASK_DEFINITION.QUEUE);
    Field<String> handler = pending.field(TASK_DEFINITION.HANDLER);
    Field<Integer> count = pending.field("pending_count", Integer.class);
    List<Waiting> out = new ArrayList<>();
    dsl.select(queue, handler, count)
        .from(pending)
        .where(DSL.not(Serving.servedPair(queue, handler)))
        .orderBy(queue, handler)
        .fetch()
        .forEach(r -> out.add(new Waiting(r.value1(), r.value2(), r.value3())));
    return out;
  }

  /**
   * Whether some (queue, handler) pair of a definition row has no live, ready worker. The pairs are
   * found by a loose index scan of {@code ix_task_definition_queue_handler} (V23), one descent per
   * distinct pair: a recursive query that each time takes the first entry after the last pair
   * found, so a million definitions over a few pairs read a few index entries, not the table.
   */
  boolean anyPairUnserved() {
    return dsl.fetchExists(unservedPairs());
  }

  /** The query of {@link #anyPairUnserved}: a row per pair without a worker. */
  Select<?> unservedPairs() {
    var first = TASK_DEFINITION.as("first_pair");
    var next = TASK_DEFINITION.as("next_pair");
    Field<String> queue = DSL.field(DSL.name("pairs", "queue"), String.class);
    Field<String> handler = DSL.field(DSL.name("pairs", "handler"), String.class);
    var after =
        DSL.lateral(
                DSL.select(next.QUEUE, next.HANDLER)
                    .from(next)
                    .where(DSL.row(next.QUEUE, next.HANDLER).gt(DSL.row(queue, handler)))
                    .orderBy(next.QUEUE, next.HANDLER)
                    .limit(DSL.inline(1)))
            .as("after_pair");
    var pairs =
        DSL.name("pairs")
            .fields("queue", "handler")
            .as(
                DSL.select(first.QUEUE, first.HANDLER)
                    .from(first)
                    .orderBy(first.QUEUE, first.HANDLER)
                    .limit(DSL.inline(1))
                    .unionAll(
                        DSL.select(
                                after.field(next.QUEUE.getName(), String.class),
                                after.field(next.HANDLER.getName(), String.class))
                            .from(DSL.table(DSL.name("pairs")))
                            .crossJoin(after)));
    return dsl.withRecursive(pairs)
        .selectOne()
        .from(pairs)
        .where(DSL.not(Serving.servedPair(queue, handler)));
  }

  /** {@link #waiting()} summed per queue, sorted by queue. */
  public static Map<String, Integer> byQueue(List<Waiting> waiting) {
    Map<String, Integer> out = new TreeMap<>();
    waiting.forEach(w -> out.merge(w.queue(), w.instances(), Integer::sum));
    return new LinkedHashMap<>(out);
  }
}
