package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.api.AgentContext;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker with {@code worker.claim-ahead} claims an instance up to that long before its fire time
 * and starts its run when the database's clock reaches it, never before: a record that arrives
 * inside the span is claimed at once, one that arrives earlier is held until the span begins.
 */
@Timeout(120)
class ClaimAheadTest {
  // One kit (database, topic, group) per test: a worker of another test in the same group would
  // take the partition and the records.
  static WorkerTestKit kit;

  @BeforeEach
  void setUp() {
    kit = new WorkerTestKit("worker_claim_ahead", 1);
    for (String task : List.of("inside", "before", "warm", "cancelled", "warm2")) {
      kit.task(task, "counting", "{}");
    }
  }

  @AfterEach
  void tearDown() {
    kit.close();
  }

  @Test
  void runs_claimed_ahead_start_on_their_fire_time_by_the_databases_clock() {
    WorkerService worker = kit.worker("ahead-1", Map.of("worker.claim-ahead", "1s"));
    kit.awaitJoined("warm");

    // Inside the claim-ahead when it arrives: claimed at once. Before it: held, then claimed.
    Instance inside = kit.dueIn("inside", "w1", Duration.ofMillis(800));
    Instance before = kit.dueIn("before", "w1", Duration.ofMillis(1_900));
    kit.publish(inside, before);

    for (Instance i : List.of(inside, before)) {
      await(i.taskId() + " to run")
          .atMost(Duration.ofSeconds(30))
          .until(() -> kit.find(i.id()).status() == InstanceStatus.SUCCESS);
      Instance ran = kit.find(i.id());
      AgentContext run = CountingAgent.probe(i.taskId()).lastContext.get();
      Instant handlerStart = databaseTimeOf(run.startedAt());
      assertThat(ran.startedAt())
          .as("%s claimed ahead of its fire time %s", i.taskId(), ran.scheduledAt())
          .isBefore(ran.scheduledAt())
          .isAfterOrEqualTo(ran.scheduledAt().minusSeconds(1));
      assertThat(handlerStart)
          .as("%s's handler started (database clock) at or after its fire time", i.taskId())
          .isAfterOrEqualTo(ran.scheduledAt());
      assertThat(ran.attempt()).isEqualTo(1);
    }
    assertThat(worker.metrics().startedOnInstant.count()).isGreaterThanOrEqualTo(2);
    assertThat(worker.metrics().heldUntilDue.count())
        .as("the record that arrived before the claim-ahead was held")
        .isGreaterThanOrEqualTo(1);
  }

  @Test
  void a_run_claimed_ahead_and_cancelled_before_its_fire_time_never_starts() {
    WorkerService worker =
        kit.worker(
            "ahead-2", Map.of("worker.claim-ahead", "1s", "worker.heartbeat-interval", "50ms"));
    kit.awaitJoined("warm2");

    Instance doomed = kit.dueIn("cancelled", "c1", Duration.ofMillis(900));
    kit.publish(doomed);
    await("the instance to be claimed ahead of its fire time")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kit.find(doomed.id()).status() == InstanceStatus.RUNNING);
    Instance claimed = kit.find(doomed.id());
    assertThat(kit.instances.cancel(claimed, "test", "cancelled before its fire time"))
        .as("cancelled while RUNNING, before its fire time %s", claimed.scheduledAt())
        .isPresent();

    await("the worker's lease renewal to find the attempt over")
        .atMost(Duration.ofSeconds(30))
        .until(() -> worker.metrics().leasesLost.count() >= 1);
    await("the database's clock to pass the fire time")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kit.databaseNow().isAfter(claimed.scheduledAt().plusMillis(300)));
    assertThat(CountingAgent.probe("cancelled").executions.get())
        .as("the waiting run was withdrawn, and its timer left it alone")
        .isZero();
    assertThat(kit.find(doomed.id()).status()).isEqualTo(InstanceStatus.CANCELLED);
  }

  /**
   * {@code t} of this host's clock on the database's clock, as late as one round trip allows: the
   * database read its clock somewhere between {@code before} and {@code after}, so the offset is at
   * most {@code db - before}. A handler that started earlier than its fire time by more than that
   * round trip shows as early; finer precision is {@code FireTimeStartsTest}'s (a start lands at
   * most one round trip after the fire time, and converting it with the smallest offset instead
   * made a correct start 0.2 ms after its fire time look early).
   */
  private static Instant databaseTimeOf(Instant t) {
    Instant before = Instant.now();
    Instant db = kit.databaseNow();
    Instant after = Instant.now();
    assertThat(Duration.between(before, after))
        .as("one round trip")
        .isLessThan(Duration.ofMillis(100));
    return t.plus(Duration.between(before, db));
  }
}
