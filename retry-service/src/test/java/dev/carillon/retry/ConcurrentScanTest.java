package dev.carillon.retry;

import static dev.carillon.model.instance.InstanceStatus.DEAD;
import static dev.carillon.model.instance.InstanceStatus.PENDING;
import static dev.carillon.model.instance.InstanceStatus.RETRY_WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.testsupport.Tasks;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two retry services scanning the same failures at the same instant retry each failure once: the
 * standby writes nothing (it holds no leader epoch), and the leader's compare-and-sets and skipped
 * locks would keep each move single even if two passes ran under one epoch.
 */
@Timeout(150)
class ConcurrentScanTest {
  private static final int INSTANCES = 40;
  private static final int MAX_RETRIES = 3;

  @Test
  void two_services_scanning_at_once_never_retry_one_failure_twice() throws Exception {
    try (Harness h = new Harness("concurrent_scan")) {
      // The rate limit is not under test here: at the default 100 a second (bucket of 100) the
      // third round's 40 promotions were held back whenever the rounds ran faster than 0.2 s,
      // leaving instances a round behind and failing the count for reasons other than the race.
      Map<String, String> unlimited =
          Map.of("retry.rate.per-second", "100000", "retry.rate.burst", "100000");
      RetryService a = h.start(unlimited, Clock.systemUTC(), 1);
      RetryService b = h.start(unlimited, Clock.systemUTC(), 2);
      String task = h.define(Tasks.daily("race").retry(new ImmediateRetry(MAX_RETRIES))).id();
      List<NewInstance> rows = new ArrayList<>();
      for (int i = 0; i < INSTANCES; i++) {
        rows.add(Tasks.pendingKey(task, "k" + i, Duration.ofMinutes(5)));
      }
      List<Long> ids = h.windows.create(rows, "test").stream().map(Instance::id).toList();
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        // Each round: every PENDING instance is claimed and fails, then both services race
        // through several passes at the same instant.
        for (int round = 0; round <= MAX_RETRIES; round++) {
          for (Instance claimed : h.leases.claim(ids, "worker")) {
            h.fail(claimed, "boom " + round, false);
          }
          for (int pass = 0; pass < 3; pass++) {
            assertThat(race(pool, a, b)).as("held back in round %d", round).isZero();
          }
        }
      } finally {
        pool.shutdownNow();
      }

      for (long id : ids) {
        List<InstanceEvent> events = h.operator.events(id);
        Map<Integer, Long> waitsPerAttempt = countPerAttempt(events, RETRY_WAIT);
        Map<Integer, Long> promotionsPerAttempt = countPerAttempt(events, PENDING);
        assertThat(waitsPerAttempt)
            .as("RETRY_WAIT per attempt of %d", id)
            .isEqualTo(Map.of(1, 1L, 2, 1L, 3, 1L));
        assertThat(promotionsPerAttempt)
            .as("promotions per attempt of %d", id)
            .isEqualTo(Map.of(1, 1L, 2, 1L, 3, 1L));
        assertThat(countPerAttempt(events, DEAD)).isEqualTo(Map.of(4, 1L));
        Instance done = h.find(id);
        assertThat(done.status()).isEqualTo(DEAD);
        assertThat(done.retryCount()).isEqualTo(MAX_RETRIES);
      }
      // Each DEAD was reported once, by the leader; the standby moved nothing.
      RetryService leader = a.isLeader() ? a : b;
      RetryService standby = leader == a ? b : a;
      assertThat(leader.metrics().totals().dead()).isEqualTo(INSTANCES);
      assertThat(leader.metrics().totals().retried()).isEqualTo((long) INSTANCES * MAX_RETRIES);
      assertThat(standby.metrics().totals().dead()).isZero();
      assertThat(standby.metrics().totals().retried()).isZero();
    }
  }

  /** Both services scan at the same instant; returns how many due retries they held back. */
  private static int race(ExecutorService pool, RetryService a, RetryService b) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    Future<ScanReport> fa =
        pool.submit(
            () -> {
              go.await();
              return a.scanOnce();
            });
    Future<ScanReport> fb =
        pool.submit(
            () -> {
              go.await();
              return b.scanOnce();
            });
    go.countDown();
    return fa.get(60, TimeUnit.SECONDS).heldBack() + fb.get(60, TimeUnit.SECONDS).heldBack();
  }

  private static Map<Integer, Long> countPerAttempt(List<InstanceEvent> events, InstanceStatus to) {
    return events.stream()
        .filter(e -> e.kind() == InstanceEvent.Kind.TRANSITION && e.to() == to)
        .filter(e -> to != PENDING || e.from() == RETRY_WAIT)
        .collect(Collectors.groupingBy(InstanceEvent::attempt, Collectors.counting()));
  }
}
