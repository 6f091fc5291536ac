package dev.carillon.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A scheduler started on a fresh database for one run of one workload. The workloads drive it only
 * through these methods; every execution of a job must call {@link Recorder#started(String,
 * Instant, Instant)} on the run's recorder with the job id, the instant the system scheduled it for
 * and the instant the handler began. Handlers do nothing else (the {@code noop} handler).
 *
 * <p>Implementations are used from one thread (the workload's); their handlers run on their own.
 */
public interface SchedulerUnderTest extends AutoCloseable {

  /**
   * Makes one one-shot instance per id, all due at one instant, and returns that instant (the start
   * of the end-to-end measurement). May return before the instances ran; the workload then waits
   * for the recorder and {@link #outstanding()}. Work done before the returned instant (creating
   * rows ahead of time) is not measured.
   */
  Instant startBurst(List<String> ids);

  /**
   * Registers the plan's recurring tasks so that each fires at its planned instants. Returns before
   * the plan's start; the workload checks that it did.
   */
  void startSteady(SteadyPlan plan);

  /**
   * The finest step between fire instants this system can schedule: 1 ms unless its schedules are
   * coarser (a cron fires on whole seconds). The steady plan puts every fire on a multiple of it,
   * so the fires the workload expects are exactly the ones the system's schedule produces.
   */
  default Duration fireResolution() {
    return Duration.ofMillis(1);
  }

  /**
   * Burst instances not yet durably SUCCESS, counting any not yet created; read from the system's
   * store, so 0 means the last SUCCESS is committed.
   */
  long outstanding();

  /** Stage throughput of the last burst where the system has stages; empty if it has none. */
  default List<Stage> burstStages() {
    return List.of();
  }

  /**
   * The system's HTTP API, for the {@code api} workload: empty when it serves none (every system
   * but Carillon).
   */
  default java.util.Optional<ApiAccess> api() {
    return java.util.Optional.empty();
  }

  /**
   * Where a system's HTTP API answers and the tokens its clients may use, one per client.
   *
   * @param base the server's base URL, e.g. {@code http://127.0.0.1:41234}
   * @param tokens bearer tokens of distinct principals allowed to list instances
   */
  record ApiAccess(java.net.URI base, java.util.List<String> tokens) {
    public ApiAccess {
      java.util.Objects.requireNonNull(base, "base");
      tokens = java.util.List.copyOf(tokens);
    }
  }

  /** Stops the scheduler and releases its connections; waits for running handlers. */
  @Override
  void close();
}
