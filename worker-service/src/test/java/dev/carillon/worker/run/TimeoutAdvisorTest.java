package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.worker.WorkerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The advisor's reads are bounded by its rate and its memory; on a test clock, without IO. */
class TimeoutAdvisorTest {
  private static final Duration TIMEOUT = Duration.ofMinutes(1);

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final List<String> reads = new CopyOnWriteArrayList<>();
  private final WorkerMetrics metrics =
      new WorkerMetrics(new SimpleMeterRegistry(), "w1", () -> 0, () -> 0, () -> 0);
  private TimeoutAdvisor advisor;

  private TimeoutAdvisor advisor(int readsPerSecond, int maxRemembered) {
    advisor =
        new TimeoutAdvisor(
            (task, window) -> {
              reads.add(task);
              return Optional.empty();
            },
            1000,
            metrics,
            "advice-test",
            readsPerSecond,
            maxRemembered,
            nanos::get);
    return advisor;
  }

  @AfterEach
  void close() {
    advisor.close();
  }

  @Test
  void versions_beyond_the_rate_are_put_off_to_a_later_run_and_read_then() {
    TimeoutAdvisor a = advisor(10, 1_000);
    for (int i = 0; i < 50; i++) {
      a.check("t" + i, 1, TIMEOUT);
    }
    assertThat(metrics.timeoutChecksDeferred.count()).isEqualTo(40);
    await("10 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 10);

    // A version already read is not read again, and costs no read.
    for (int i = 0; i < 10; i++) {
      a.check("t" + i, 1, TIMEOUT);
    }
    assertThat(metrics.timeoutChecksDeferred.count()).isEqualTo(40);

    // Half a second later five more may be read: the next runs of five put-off versions.
    nanos.addAndGet(500_000_000L);
    for (int i = 10; i < 20; i++) {
      a.check("t" + i, 1, TIMEOUT);
    }
    assertThat(metrics.timeoutChecksDeferred.count()).isEqualTo(45);
    await("15 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 15);
    assertThat(reads)
        .containsExactlyInAnyOrder(
            "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12", "t13",
            "t14");

    // A new version of a task read already is a new check.
    nanos.addAndGet(1_000_000_000L);
    a.check("t0", 2, TIMEOUT);
    await("16 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 16);
  }

  @Test
  void checked_versions_beyond_the_memory_bound_are_forgotten_and_read_again() {
    TimeoutAdvisor a = advisor(1_000, 3);
    for (int i = 0; i < 3; i++) {
      a.check("t" + i, 1, TIMEOUT);
    }
    await("3 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 3);
    a.check("t0", 1, TIMEOUT); // remembered: no read
    a.check("t3", 1, TIMEOUT); // the fourth: the three are forgotten first
    await("4 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 4);
    a.check("t0", 1, TIMEOUT); // forgotten: read again
    await("5 evidence reads").atMost(Duration.ofSeconds(10)).until(() -> reads.size() == 5);
    assertThat(reads).containsExactly("t0", "t1", "t2", "t3", "t0");
  }
}
