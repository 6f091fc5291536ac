package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Recovery after an outage: a thousand due retries go out no faster than the limit. */
@Timeout(120)
class RateLimitedRecoveryTest {
  private static final int TOTAL = 1000;
  private static final int RATE = 100;
  private static final int BURST = 100;

  @Test
  void a_thousand_due_retries_are_republished_at_most_100_per_second_and_all_eventually()
      throws Exception {
    try (Harness h = new Harness("rate_limit")) {
      SettableClock clock = new SettableClock(Instant.parse("2026-03-29T08:00:00Z"));
      RetryService service =
          h.start(
              Map.of(
                  "retry.rate.per-second",
                  Integer.toString(RATE),
                  "retry.rate.burst",
                  Integer.toString(BURST),
                  "retry.rate.max-per-scan",
                  "500",
                  "retry.batch-size",
                  "500"),
              clock);
      String task = h.define(Tasks.everySeconds("flood", 1).retry(new ImmediateRetry(3))).id();
      List<NewInstance> rows = new ArrayList<>();
      for (int i = 0; i < TOTAL; i++) {
        rows.add(Tasks.pendingKey(task, "w" + i, Duration.ofMinutes(5)));
      }
      List<Instance> created = h.windows.create(rows, "test");
      // The outage: every one of them failed and is due for its retry now.
      h.db
          .dsl()
          .update(TASK_INSTANCE)
          .set(TASK_INSTANCE.STATUS, InstanceStatus.RETRY_WAIT.name())
          .set(TASK_INSTANCE.ATTEMPT, 1)
          .set(
              TASK_INSTANCE.NEXT_ATTEMPT_AT,
              DSL.field("now() - interval '1 second'", Instant.class))
          .where(TASK_INSTANCE.TASK_ID.eq(task))
          .execute();
      var topic = h.readInstances();

      int published = 0;
      int passes = 0;
      List<Integer> perPass = new ArrayList<>();
      ScanReport first = null;
      while (published < TOTAL && passes < 20) {
        ScanReport r = service.scanOnce();
        first = first == null ? r : first;
        published += r.republished();
        perPass.add(r.republished());
        // After k seconds of the bucket's clock: at most burst + rate × k.
        assertThat(published).isLessThanOrEqualTo(BURST + RATE * passes);
        passes++;
        clock.advance(Duration.ofSeconds(1));
      }

      assertThat(published).isEqualTo(TOTAL);
      assertThat(perPass).hasSize(10).allSatisfy(n -> assertThat(n).isEqualTo(RATE));
      assertThat(first.heldBack()).isEqualTo(TOTAL - RATE);
      assertThat(service.metrics().totals().heldBack()).isGreaterThanOrEqualTo(TOTAL - RATE);
      Set<Long> ids = created.stream().map(Instance::id).collect(Collectors.toSet());
      await("every stranded instance to be republished")
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(topic.messages.stream().map(m -> m.instanceId()).toList())
                      .containsAll(ids));
      assertThat(topic.messages).hasSize(TOTAL);
      assertThat(h.operator.countByStatus(task)).containsEntry(InstanceStatus.PENDING, TOTAL);
    }
  }
}
