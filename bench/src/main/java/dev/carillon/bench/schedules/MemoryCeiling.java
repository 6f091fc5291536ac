package dev.carillon.bench.schedules;

/**
 * How many tasks a trigger's heap holds, from the bytes per task definition measured by {@code
 * SchedulesBench}.
 *
 * <p>A trigger service keeps every task definition in memory once per loop that reads them: the
 * tick loop (its {@code DefinitionCache}, plus a cursor and a cached next fire time per task) and
 * {@value #OTHER_CACHES} more {@code DefinitionCache}s, in the dependency releaser, the event
 * consumer and the condition poller, each loading every row whatever its trigger. The ceiling
 * leaves out the service's own baseline (its pools, Kafka clients, the API) and the first load's
 * transient (the query's whole result is in memory at once), so the real one is lower.
 *
 * @param loopBytesPerTask retained heap of a tick loop after a tick, per task
 * @param cacheBytesPerTask retained heap of one more {@code DefinitionCache}, per task
 * @param heapBytes the trigger's maximum heap
 */
public record MemoryCeiling(double loopBytesPerTask, double cacheBytesPerTask, long heapBytes) {
  /** The definition caches of a trigger service besides the tick loop's. */
  public static final int OTHER_CACHES = 3;

  /**
   * The trigger's default maximum heap: the container's memory limit in {@code
   * deploy/k8s/trigger.yaml} (1 GiB) times {@code -XX:MaxRAMPercentage=75} in {@code
   * deploy/trigger/Dockerfile}.
   */
  public static final long DEFAULT_TRIGGER_HEAP = 768L * 1024 * 1024;

  public MemoryCeiling {
    if (!(loopBytesPerTask > 0) || cacheBytesPerTask < 0 || heapBytes < 1) {
      throw new IllegalArgumentException(
          "need loopBytesPerTask > 0, cacheBytesPerTask >= 0, heapBytes >= 1; was "
              + loopBytesPerTask
              + ", "
              + cacheBytesPerTask
              + ", "
              + heapBytes);
    }
  }

  /** The heap a trigger service holds per task: the loop's and the other caches'. */
  public double serviceBytesPerTask() {
    return loopBytesPerTask + OTHER_CACHES * cacheBytesPerTask;
  }

  /** The most tasks whose definitions fit in {@code heapBytes}: an upper bound. */
  public long tasks() {
    return (long) (heapBytes / serviceBytesPerTask());
  }
}
