package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.EffectRecord;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An effect was performed and its done record could not be written at first: the worker tries the
 * record again while it may still hold the lease, so the attempt succeeds and no later attempt
 * performs the effect again in doubt. The fault suite saw the opposite after a PostgreSQL restart
 * of 0.4 s just after an effect (CI, 2026-12-07). Here the database refuses the record for real:
 * the test holds the effect's row lock, so the worker's write waits out its statement timeout and
 * fails, until the test lets go.
 */
@Timeout(300)
class EffectRecordRetryTest {
  private static final Duration LEASE = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(60);

  static WorkerTestKit kit;
  static WorkerService worker;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_effect_retry", 1);
    worker = kit.worker("record-1", Map.of("db.statement-timeout", "300ms"));
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void a_done_record_that_fails_is_tried_again_and_the_effect_is_not_repeated() throws Exception {
    String task = "once-record-retry";
    kit.task(task, "resuming", "{\"post\":true,\"holdAttempt\":1,\"holdInEffect\":true}");
    Instance i = kit.instance(task, "w1", LEASE);
    ResumingAgent.Probe p = ResumingAgent.probe(task);
    double retries = worker.metrics().effectRecordRetries.count();
    kit.publish(i);
    await("attempt 1 to hold inside its effect, after posting")
        .atMost(WAIT)
        .until(() -> p.holding.getCount() == 0);

    try (Connection lock =
        DriverManager.getConnection(kit.dbUrl, kit.stack.dbUser(), kit.stack.dbPassword())) {
      lock.setAutoCommit(false);
      try (PreparedStatement s =
          lock.prepareStatement(
              "SELECT attempt FROM instance_effect WHERE instance_id = ? FOR UPDATE")) {
        s.setLong(1, i.id());
        try (ResultSet rs = s.executeQuery()) {
          assertThat(rs.next()).as("the effect's start record").isTrue();
        }
      }
      ResumingAgent.gate(task).countDown();
      await("the done record to fail and be tried again")
          .atMost(WAIT)
          .until(() -> worker.metrics().effectRecordRetries.count() > retries);
      assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.RUNNING);
      lock.rollback();
    }

    await(i.idempotencyKey() + " to succeed")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    assertThat(kit.find(i.id()).attempt()).isEqualTo(1);
    assertThat(p.performed).containsExactly("attempt 1 " + task + "/w1/post inDoubt=false");
    assertThat(p.onceResults.get(1)).containsExactly("posted by attempt 1");
    assertThat(kit.instances.effects(i.id()))
        .extracting(EffectRecord::attempt, EffectRecord::done, EffectRecord::workerId)
        .containsExactly(tuple(1, true, "record-1"));
    assertThat(worker.metrics().effectRecordRetries.count()).isEqualTo(retries + 1);
  }
}
