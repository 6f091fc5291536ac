package dev.carillon.bench.schedules;

/**
 * How many tasks a trigger's heap holds, from the bytes per task of a tick loop measured by {@code
 * SchedulesBench}.
 *
 * <p>A trigger service keeps every task definition in memory once: the tick loop holds it (its
 * {@code DefinitionCache}, plus a cursor and a cached next fire time per task), and the dependency
 * releaser, the event consumer and the condition poller read the same cache (they each held a copy
 * of their own before, about 450 bytes a task apiece, which put the default heap's ceiling near
 * 410,000 tasks). The ceiling leaves out the service's own baseline (its pools, Kafka clients, the
 * API), so the real one is lower.
 *
 * @param loopBytesPerTask retained heap of a tick loop after a tick, per task
 * @param heapBytes the trigger's maximum heap
 */
public record MemoryCeiling(double loopBytesPerTask, long heapBytes) {
  /**
   * The trigger's default maximum heap: the container's memory limit in {@code
   * deploy/k8s/trigger.yaml} (1 GiB) times {@code -XX:MaxRAMPercentage=75} in {@code
   * deploy/trigger/Dockerfile}.
   */
  public static final long DEFAULT_TRIGGER_HEAP = 768L * 1024 * 1024;

  public MemoryCeiling {
    if (!(loopBytesPerTask > 0) || heapBytes < 1) {
      throw new IllegalArgumentException(
          "need loopBytesPerTask > 0 and heapBytes >= 1; was "
              + loopBytesPerTask
              + ", "
              + heapBytes);
    }
  }

  /** The heap a trigger service holds per task: its tick loop's, the one copy of the rows. */
  public double serviceBytesPerTask() {
    return loopBytesPerTask;
  }

  /** The most tasks whose definitions fit in {@code heapBytes}: an upper bound. */
  public long tasks() {
    return (long) (heapBytes / serviceBytesPerTask());
  }
}
