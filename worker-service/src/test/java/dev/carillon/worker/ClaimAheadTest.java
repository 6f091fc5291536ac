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
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker with {@code worker.claim-ahead} claims an instance up to that long before its fire time
 * and starts its run when the database's clock reaches it, never before: a record that arrives
 * inside the span is claimed at once, one that arrives earlier is held until the span begins.
 */
@Timeout(120)
class ClaimAheadTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_claim_ahead", 1);
    kit.task("inside", "counting", "{}");
    kit.task("before", "counting", "{}");
    kit.task("warm", "counting", "{}");
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void runs_claimed_ahead_start_on_their_fire_time_by_the_databases_clock() {
    WorkerService worker = kit.worker("ahead-1", Map.of("worker.claim-ahead", "1s"));
    // The worker first runs a due instance, so that it holds its partition and fetches before the
    // records below are published (a cold join can outlast their lead on a busy machine).
    Instance warm = kit.dueIn("warm", "warm", Duration.ZERO);
    kit.publish(warm);
    await("the worker to join its group and run a due instance")
        .atMost(Duration.ofSeconds(60))
        .until(() -> kit.find(warm.id()).status() == InstanceStatus.SUCCESS);

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

  /**
   * {@code t} of this host's clock on the database's clock: the worker and PostgreSQL share the
   * host here, so the offset is what one round trip measures, at most its length.
   */
  private static Instant databaseTimeOf(Instant t) {
    Instant before = Instant.now();
    Instant db =
        kit.db
            .dsl()
            .select(DSL.field("clock_timestamp()", SQLDataType.INSTANT))
            .fetchSingle()
            .value1();
    Instant after = Instant.now();
    // The database's clock minus this host's lies between these two; the smaller one (the read
    // taken at the end of the round trip) puts the handler's start earliest, so an early start
    // shows.
    Duration offset = Duration.between(after, db);
    assertThat(Duration.between(before, after))
        .as("one round trip")
        .isLessThan(Duration.ofSeconds(1));
    return t.plus(offset);
  }
}
