package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.lease.LeaseFence;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run that does not end after its stop is abandoned, unless the worker's database does not
 * answer: then its thread is blocked by the outage, not by its plugin, and it is looked at again
 * until the outage is over (issue 20: a PostgreSQL hang made workers give up and restart).
 */
@Timeout(60)
class StopperTest {
  private static final Duration GRACE = Duration.ofMillis(50);

  private final WorkerMetrics metrics =
      new WorkerMetrics(new SimpleMeterRegistry(), "w1", () -> 0, () -> 0, () -> 0);
  private final AtomicReference<Optional<String>> outage =
      new AtomicReference<>(Optional.of("PostgreSQL does not answer this worker"));
  private final AtomicInteger outageAsked = new AtomicInteger();
  private final List<String> gaveUp = new ArrayList<>();
  private final Stopper stopper =
      new Stopper(
          metrics,
          new LeaseFence(Duration.ofSeconds(1), GRACE),
          new GiveUp(
              1,
              reason -> {
                synchronized (gaveUp) {
                  gaveUp.add(reason);
                }
              },
              () -> {
                outageAsked.incrementAndGet();
                return outage.get();
              }),
          "w1");

  @AfterEach
  void close() {
    stopper.close();
  }

  @Test
  void a_run_busy_during_an_outage_is_abandoned_only_once_the_outage_is_over() {
    Run run = RunStateTest.runIn(RunState.RUNNING);
    stopper.stop(run);

    await("three looks during the outage")
        .atMost(Duration.ofSeconds(10))
        .until(() -> outageAsked.get() >= 3);
    assertThat(stopper.abandoned()).isZero();
    assertThat(stopper.gaveUp()).isFalse();
    assertThat(metrics.abandonDeferred.count()).as("counted once, not per look").isEqualTo(1.0);
    assertThat(metrics.abandoned.count()).isZero();

    outage.set(Optional.empty());
    await("abandoned after the outage").atMost(Duration.ofSeconds(10)).until(stopper::gaveUp);
    assertThat(stopper.abandoned()).isEqualTo(1);
    assertThat(metrics.abandoned.count()).isEqualTo(1.0);
    synchronized (gaveUp) {
      assertThat(gaveUp).singleElement().asString().contains("worker.max-abandoned-runs is 1");
    }
  }

  @Test
  void a_run_that_ends_during_the_outage_is_never_abandoned() {
    Run blocked = RunStateTest.runIn(RunState.RUNNING);
    stopper.stop(blocked);
    await("deferred")
        .atMost(Duration.ofSeconds(10))
        .until(() -> metrics.abandonDeferred.count() == 1.0);

    // The outage ends and the blocked write returns: the thread is done with the run.
    blocked.threadEnded();
    stopper.threadEnded(blocked);
    outage.set(Optional.empty());

    // A run stopped now is looked at after the blocked run's next look (one timer, in time order),
    // so once it is abandoned the blocked run has been looked at too.
    Run deaf = RunStateTest.runIn(RunState.RUNNING);
    stopper.stop(deaf);
    await("the deaf run abandoned").atMost(Duration.ofSeconds(10)).until(stopper::gaveUp);
    assertThat(deaf.abandoned()).isTrue();
    assertThat(blocked.abandoned()).isFalse();
    assertThat(stopper.abandoned()).isEqualTo(1);
    assertThat(metrics.abandoned.count()).isEqualTo(1.0);
  }
}
