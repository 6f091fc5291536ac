package dev.carillon.trigger.tick;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.store.Decision;
import dev.carillon.store.Fence;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.plan.TickPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Writes a {@link TickPlan} as several transactions of whole tasks ({@link
 * WindowStore#commitTick}), committed on up to {@code threads} connections at once.
 *
 * <p>Each chunk holds every row, decision and cursor of its tasks, so a chunk is correct on its
 * own: the UNIQUE window index decides which rows exist and a cursor only moves forward, whatever
 * order the chunks (or a second leader's chunks) commit in. Chunks of one plan cover disjoint
 * tasks, so they lock disjoint rows and cannot wait for each other. Committing two at once matters
 * because most of a large tick's time is the database maintaining indexes row by row on one
 * backend; a second connection puts the second core to work.
 *
 * <p>Failure is as with one chunk after another: the chunks that committed stay committed, no chunk
 * starts after one failed, and the first failure is thrown once every started chunk ended.
 *
 * <p>Not thread-safe; one tick at a time (the loop's tick lock).
 */
final class ChunkCommitter {
  /**
   * Rows plus decisions (or tasks) per transaction, at most. The store binds whole columns as
   * arrays, so this bounds the transaction's size (locks held, work lost to a failure), not the
   * statement's bind values.
   */
  static final int MAX_CHUNK = 2_000;

  /**
   * Smaller plans commit in one transaction on the calling thread: a hand-off to another thread
   * would cost more than it saves, and nearly every tick is small. From here on a tick's commit is
   * on the fire-lag path of every instance in it, and two transactions in parallel commit it in
   * about half the time of one.
   */
  static final int PARALLEL_FROM = 200;

  /**
   * Connections used at once. Two: the trigger runs on small machines (two cores), and the pool is
   * shared with the dispatcher and the other leader loops.
   */
  static final int DEFAULT_THREADS = 2;

  /** One transaction's share of the plan. */
  record Chunk(
      List<NewInstance> rows, List<Decision> decisions, SortedMap<String, TriggerCursor> cursors) {}

  private final WindowStore windows;
  private final String actor;
  private final int maxChunk;
  private final int parallelFrom;
  private final int threads;
  private final ThreadPoolExecutor pool;

  ChunkCommitter(WindowStore windows, String actor) {
    this(windows, actor, MAX_CHUNK, PARALLEL_FROM, DEFAULT_THREADS);
  }

  ChunkCommitter(WindowStore windows, String actor, int maxChunk, int parallelFrom, int threads) {
    if (maxChunk < 1 || parallelFrom < 1 || threads < 1) {
      throw new IllegalArgumentException(
          "maxChunk, parallelFrom and threads must be >= 1, were "
              + maxChunk
              + ", "
              + parallelFrom
              + ", "
              + threads);
    }
    this.windows = Objects.requireNonNull(windows, "windows");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.maxChunk = maxChunk;
    this.parallelFrom = parallelFrom;
    this.threads = threads;
    AtomicInteger n = new AtomicInteger();
    // Threads end when idle, so a loop that is dropped (tests, a lost leadership) leaves none.
    this.pool =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "trigger-commit-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /** Commits the plan and returns the instances created, in chunk order. */
  List<Instance> commit(TickPlan plan, Fence fence) {
    return commit(plan, fence, created -> {});
  }

  /**
   * Commits the plan and returns the instances created, in chunk order.
   *
   * @param fence the leader's fence, which every chunk's statements carry
   * @param committed called with each chunk's created instances as soon as that chunk committed, on
   *     the committing thread (chunks may commit in any order and at the same time); it must not
   *     block. The tick hands them to the dispatcher this way, so that workers start on the first
   *     chunk while the last is still being written.
   * @throws RuntimeException the first chunk's failure (typically {@code DataAccessException}, or
   *     {@link dev.carillon.store.FencedException} when another leader took over); {@code
   *     committed} has been called for every chunk that committed
   */
  List<Instance> commit(TickPlan plan, Fence fence, Consumer<List<Instance>> committed) {
    List<Chunk> chunks = split(plan, maxChunk, parallelFrom, threads);
    if (chunks.size() == 1) {
      List<Instance> created = commit(chunks.get(0), fence);
      committed.accept(created);
      return created;
    }
    AtomicBoolean failed = new AtomicBoolean();
    List<Future<List<Instance>>> results = new ArrayList<>(chunks.size());
    for (Chunk c : chunks) {
      results.add(
          pool.submit(
              () -> {
                if (failed.get()) {
                  return List.<Instance>of();
                }
                try {
                  List<Instance> created = commit(c, fence);
                  committed.accept(created);
                  return created;
                } catch (RuntimeException | Error e) {
                  failed.set(true);
                  throw e;
                }
              }));
    }
    List<Instance> created = new ArrayList<>(plan.rows().size());
    RuntimeException failure = null;
    for (Future<List<Instance>> r : results) {
      try {
        created.addAll(awaitUninterruptibly(r));
      } catch (ExecutionException e) {
        if (failure == null) {
          failure =
              e.getCause() instanceof RuntimeException re
                  ? re
                  : new IllegalStateException("tick commit failed", e.getCause());
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return created;
  }

  private List<Instance> commit(Chunk c, Fence fence) {
    return windows.commitTick(c.rows(), c.decisions(), c.cursors(), actor, fence);
  }

  /**
   * Waits for a chunk even when the tick thread is interrupted (the loop is being stopped): a chunk
   * is one bounded transaction, and returning early would let the next tick start beside it.
   */
  private static <T> T awaitUninterruptibly(Future<T> f) throws ExecutionException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Splits the plan into chunks of whole tasks, in task id order. A plan of at least {@code
   * parallelFrom} rows plus decisions (or tasks) is cut into a multiple of {@code threads} chunks
   * of about equal size, none above {@code maxChunk}, so that no thread is left committing the last
   * chunk alone; a smaller plan is one chunk.
   */
  static List<Chunk> split(TickPlan plan, int maxChunk, int parallelFrom, int threads) {
    int size = Math.max(plan.rows().size() + plan.decisions().size(), plan.cursors().size());
    int count = (size + maxChunk - 1) / maxChunk;
    if (size >= parallelFrom && threads > 1) {
      count = Math.max(threads, ((count + threads - 1) / threads) * threads);
    }
    int target = Math.max(1, (size + count - 1) / Math.max(1, count));

    Map<String, List<NewInstance>> rowsByTask = new HashMap<>();
    plan.rows().forEach(r -> rowsByTask.computeIfAbsent(r.taskId(), k -> new ArrayList<>()).add(r));
    Map<String, List<Decision>> decisionsByTask = new HashMap<>();
    plan.decisions()
        .forEach(d -> decisionsByTask.computeIfAbsent(d.taskId(), k -> new ArrayList<>()).add(d));
    List<Chunk> chunks = new ArrayList<>(count);
    List<NewInstance> rows = new ArrayList<>();
    List<Decision> decisions = new ArrayList<>();
    SortedMap<String, TriggerCursor> cursors = new TreeMap<>();
    for (Map.Entry<String, TriggerCursor> c : plan.cursors().entrySet()) {
      rows.addAll(rowsByTask.getOrDefault(c.getKey(), List.of()));
      decisions.addAll(decisionsByTask.getOrDefault(c.getKey(), List.of()));
      cursors.put(c.getKey(), c.getValue());
      if (rows.size() + decisions.size() >= target || cursors.size() >= target) {
        chunks.add(new Chunk(rows, decisions, cursors));
        rows = new ArrayList<>();
        decisions = new ArrayList<>();
        cursors = new TreeMap<>();
      }
    }
    if (!cursors.isEmpty() || chunks.isEmpty()) {
      chunks.add(new Chunk(rows, decisions, cursors));
    }
    return chunks;
  }
}
