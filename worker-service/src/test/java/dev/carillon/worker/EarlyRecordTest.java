package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A record that reaches a worker before its instance is due (a trigger with {@code
 * trigger.create-ahead} publishes just ahead of the fire time) is held and claimed on the instant,
 * never before it by the database's clock; one due much later is dropped for the dispatch sweep.
 */
@Timeout(120)
class EarlyRecordTest {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_early", 1);
    kit.task("early", "counting", "{}");
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_record_published_before_its_instance_is_due_runs_on_the_instant_not_before() {
    WorkerService worker = kit.worker("early-1", Map.of());
    // A record that arrives after its due time is claimed at once and never held, so the worker
    // first joins and fetches.
    kit.awaitJoined("early");
    Instance soon = kit.dueIn("early", "soon", Duration.ofMillis(700));
    Instance late = kit.dueIn("early", "late", Duration.ofMinutes(10));
    kit.publish(soon, late);

    await("the instance published early to run once due")
        .atMost(Duration.ofSeconds(30))
        .until(() -> kit.find(soon.id()).status() == InstanceStatus.SUCCESS);
    Instance ran = kit.find(soon.id());
    assertThat(ran.startedAt())
        .as("claimed at %s, due at %s", ran.startedAt(), ran.scheduledAt())
        .isAfterOrEqualTo(ran.scheduledAt())
        .isBefore(ran.scheduledAt().plusMillis(500));
    assertThat(ran.attempt()).isEqualTo(1);
    assertThat(worker.metrics().heldUntilDue.count()).isGreaterThanOrEqualTo(1);

    await("the record due in ten minutes to be dropped as a lost claim")
        .atMost(Duration.ofSeconds(30))
        .until(() -> worker.metrics().lostClaims.count() == 1);
    assertThat(kit.find(late.id()).status())
        .as("left PENDING for the dispatch sweep")
        .isEqualTo(InstanceStatus.PENDING);
  }
}
