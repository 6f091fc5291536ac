package dev.carillon.control;

import dev.carillon.kafka.ConfigTopic;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * What the API's routes work with: the stores (on the API's own connection pool, so API load cannot
 * take the trigger's connections; the workers' presence for why an instance waits), the run
 * evidence behind timeout suggestions, the config topic, the publisher of new PENDING instances,
 * the clock, and how bulk operations are paced.
 *
 * @param bulkPerSecond how many instances a bulk re-run or a backfill moves or creates per second
 * @param sleeper waits between the batches of a bulk operation (tests pass one that moves a clock)
 */
public record ControlPlane(
    Clock clock,
    TaskStore tasks,
    OperatorStore operator,
    WindowStore windows,
    PresenceStore presence,
    RunEvidenceStore evidence,
    ConfigTopic config,
    InstanceDispatch dispatch,
    double bulkPerSecond,
    Sleeper sleeper) {

  /** Waits; the API's only sleep is the pacing of bulk operations. */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;

    /** The calling thread sleeps. */
    Sleeper THREAD = d -> java.util.concurrent.TimeUnit.NANOSECONDS.sleep(d.toNanos());
  }

  public ControlPlane {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(tasks, "tasks");
    Objects.requireNonNull(operator, "operator");
    Objects.requireNonNull(windows, "windows");
    Objects.requireNonNull(presence, "presence");
    Objects.requireNonNull(evidence, "evidence");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(dispatch, "dispatch");
    Objects.requireNonNull(sleeper, "sleeper");
    if (!(bulkPerSecond > 0)) {
      throw new IllegalArgumentException("bulkPerSecond must be more than 0: " + bulkPerSecond);
    }
  }
}
