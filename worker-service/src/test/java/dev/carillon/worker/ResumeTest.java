package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.SavedCheckpoint;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Checkpoints and effects through real workers (issue 26). The zombie worker has a topic of its own
 * and renews its leases only every ten minutes, so it learns that its attempt was taken over only
 * when it writes: the database's fence is what refuses it, not the worker's own heartbeat. The
 * takeover is what the retry service does to a worker that froze: the lease ends, the expiry scan
 * moves the instance to TIMEOUT, the retry makes it PENDING, and the other worker claims it.
 */
@Timeout(300)
class ResumeTest {
  private static final Duration LEASE = Duration.ofMinutes(3);
  private static final Duration WAIT = Duration.ofSeconds(60);

  static WorkerTestKit kit;
  static WorkerService zombie;
  static WorkerService worker;
  static String zombieTopic;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_resume", 1);
    zombieTopic = kit.newTopic("zombie");
    zombie =
        kit.worker(
            "zombie-1",
            Map.of(
                "worker.topic",
                zombieTopic,
                "worker.group",
                kit.group + "-zombie",
                "worker.heartbeat-interval",
                "10m"));
    worker = kit.worker("resume-1", Map.of());
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  private static void awaitStatus(Instance i, InstanceStatus status) {
    await(i.idempotencyKey() + " to be " + status)
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(kit.find(i.id()).status()).isEqualTo(status));
  }

  @Test
  void a_zombies_late_checkpoint_is_refused_and_attempt_3_resumes_from_attempt_2() {
    String task = "zombie-checkpoint";
    kit.task(task, "resuming", "{\"holdAttempt\":1,\"failAttempt\":2}");
    Instance i = kit.instance(task, "w1", LEASE);
    ResumingAgent.Probe p = ResumingAgent.probe(task);
    // The zombie worker serves two tests; its counters are compared with their values here.
    double discarded = zombie.metrics().discarded.count();
    double refused = zombie.metrics().checkpointsRefused.count();
    double lost = zombie.metrics().leasesLost.count();
    kit.publishTo(zombieTopic, i);
    await("attempt 1 to checkpoint and hold").atMost(WAIT).until(() -> p.holding.getCount() == 0);

    kit.expireLease(i.id());
    kit.retryNow(i.id());
    awaitStatus(i, InstanceStatus.FAILED);
    assertThat(p.resumedFrom).containsEntry(2, "{\"attempt\":1,\"step\":\"early\"}");

    ResumingAgent.gate(task).countDown();
    await("the zombie's late checkpoint")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(p.late).containsEntry(1, "refused"));
    await("the zombie's run to be stopped and its end discarded")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(zombie.metrics().discarded.count()).isEqualTo(discarded + 1));
    assertThat(zombie.metrics().checkpointsRefused.count()).isEqualTo(refused + 1);
    assertThat(zombie.metrics().leasesLost.count()).isEqualTo(lost + 1);

    kit.retryNow(i.id());
    awaitStatus(i, InstanceStatus.SUCCESS);
    assertThat(p.resumedFrom)
        .as("attempt 3 resumes from attempt 2, not from the zombie's late checkpoint")
        .containsEntry(3, "{\"attempt\":2,\"step\":\"early\"}");
    assertThat(kit.instances.checkpoints(i.id()))
        .extracting(SavedCheckpoint::attempt, SavedCheckpoint::stateJson, SavedCheckpoint::workerId)
        .containsExactly(
            tuple(1, "{\"attempt\":1,\"step\":\"early\"}", "zombie-1"),
            tuple(2, "{\"attempt\":2,\"step\":\"early\"}", "resume-1"),
            tuple(3, "{\"attempt\":3,\"step\":\"early\"}", "resume-1"));
    assertThat(kit.instances.events(i.id()))
        .filteredOn(e -> "zombie-1".equals(e.actor()))
        .as("the zombie wrote only its claim")
        .singleElement()
        .satisfies(e -> assertThat(e.to()).isEqualTo(InstanceStatus.RUNNING));
  }

  @Test
  void an_effect_recorded_as_done_is_not_performed_again_by_the_retry() {
    String task = "once-done";
    kit.task(task, "resuming", "{\"post\":true,\"failAttempt\":1}");
    Instance i = kit.instance(task, "w1", LEASE);
    ResumingAgent.Probe p = ResumingAgent.probe(task);
    kit.publish(i);
    awaitStatus(i, InstanceStatus.FAILED);

    kit.retryNow(i.id());
    awaitStatus(i, InstanceStatus.SUCCESS);

    assertThat(p.performed).containsExactly("attempt 1 " + task + "/w1/post inDoubt=false");
    assertThat(p.onceResults).containsEntry(2, java.util.List.of("posted by attempt 1"));
    assertThat(kit.instances.effects(i.id()))
        .extracting(
            EffectRecord::key, EffectRecord::attempt, EffectRecord::done, EffectRecord::result)
        .containsExactly(tuple("post", 1, true, "posted by attempt 1"));
    assertThat(worker.metrics().effectsSkipped.count()).isPositive();
  }

  @Test
  void an_effect_a_zombie_performed_and_could_not_record_runs_again_in_doubt_with_the_same_key() {
    String task = "once-gap";
    kit.task(task, "resuming", "{\"post\":true,\"holdAttempt\":1,\"holdInEffect\":true}");
    Instance i = kit.instance(task, "w1", LEASE);
    ResumingAgent.Probe p = ResumingAgent.probe(task);
    double refused = zombie.metrics().effectsRefused.count();
    kit.publishTo(zombieTopic, i);
    await("attempt 1 to hold inside its effect, after posting")
        .atMost(WAIT)
        .until(() -> p.holding.getCount() == 0);

    kit.expireLease(i.id());
    kit.retryNow(i.id());
    awaitStatus(i, InstanceStatus.SUCCESS);
    ResumingAgent.gate(task).countDown();
    await("the zombie's effect record to be refused")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(zombie.metrics().effectsRefused.count()).isEqualTo(refused + 1));

    // The gap: the effect ran twice, the second time told it was in doubt, both times with the
    // same idempotency key, which is what lets the receiving system make them one.
    assertThat(p.performed)
        .containsExactly(
            "attempt 1 " + task + "/w1/post inDoubt=false",
            "attempt 2 " + task + "/w1/post inDoubt=true");
    assertThat(kit.instances.effects(i.id()))
        .extracting(EffectRecord::attempt, EffectRecord::done, EffectRecord::workerId)
        .containsExactly(tuple(1, false, "zombie-1"), tuple(2, true, "resume-1"));
  }

  @Test
  void eight_threads_of_one_run_calling_once_with_one_key_perform_the_effect_once() {
    String task = "once-threads";
    kit.task(task, "resuming", "{\"post\":true,\"threads\":8}");
    Instance i = kit.instance(task, "w1", LEASE);
    ResumingAgent.Probe p = ResumingAgent.probe(task);
    kit.publish(i);
    awaitStatus(i, InstanceStatus.SUCCESS);

    assertThat(p.performed).hasSize(1);
    assertThat(p.onceResults.get(1)).hasSize(8).containsOnly("posted by attempt 1");
  }
}
