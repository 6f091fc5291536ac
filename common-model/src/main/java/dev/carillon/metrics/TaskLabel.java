package dev.carillon.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code task} label of a metric, with a cap on distinct values: the first {@code limit} task
 * ids seen keep their own label, every later one is counted as {@value #OTHER}. Each label value is
 * a series in every metric that carries it, and a deployment with ten thousand tasks must not turn
 * one histogram into a quarter of a million series.
 *
 * <p>{@value #OTHER} cannot be a task id (ids start with a letter or digit). Which tasks keep a
 * label depends on the order they are first seen in a process, so a restart may give other tasks
 * theirs; the first overflow is logged once (WARN) naming the limit and the key that raises it.
 *
 * <p>Thread-safe. One instance per process, shared by the meters of a service.
 */
public final class TaskLabel {
  /** The label value of every task beyond the limit. */
  public static final String OTHER = "_other";

  /** Distinct task labels per process unless {@code metrics.task-label-limit} says otherwise. */
  public static final int DEFAULT_LIMIT = 100;

  /** The largest limit accepted. */
  public static final int MAX_LIMIT = 10_000;

  /** The key of the limit; every service reads it. */
  public static final String KEY = "metrics.task-label-limit";

  private static final Logger log = LoggerFactory.getLogger(TaskLabel.class);

  private final int limit;
  private final Set<String> admitted = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean warned = new AtomicBoolean();

  /**
   * @param limit distinct task ids that keep their own label, 0..{@value #MAX_LIMIT} (0 labels
   *     every task {@value #OTHER})
   */
  public TaskLabel(int limit) {
    if (limit < 0 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "metrics.task-label-limit must be 0.." + MAX_LIMIT + ", was " + limit);
    }
    this.limit = limit;
  }

  /**
   * The limit from {@value #KEY}.
   *
   * @throws dev.carillon.config.ConfigException naming the key and value when it is out of range
   */
  public static TaskLabel from(dev.carillon.config.Config c) {
    return new TaskLabel(c.integer(KEY, DEFAULT_LIMIT, 0, MAX_LIMIT));
  }

  /**
   * The label value for {@code taskId}: the id itself while under the limit, else {@value #OTHER}.
   */
  public String of(String taskId) {
    if (taskId == null || taskId.isEmpty()) {
      return OTHER;
    }
    if (admitted.contains(taskId)) {
      return taskId;
    }
    synchronized (this) {
      if (admitted.contains(taskId)) {
        return taskId;
      }
      if (admitted.size() < limit) {
        admitted.add(taskId);
        return taskId;
      }
    }
    if (warned.compareAndSet(false, true)) {
      log.warn(
          "More than {} distinct tasks seen: task {} and every later one are labelled '{}' in the"
              + " metrics (raise metrics.task-label-limit to label more)",
          limit,
          taskId,
          OTHER);
    }
    return OTHER;
  }

  /** The cap on distinct labels. */
  public int limit() {
    return limit;
  }
}
