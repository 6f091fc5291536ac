package dev.carillon.worker;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.worker.WorkerPresence;
import dev.carillon.store.PresenceStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18's hung-run must-show: a Java plugin that ignores interrupts, on one of two workers. That
 * worker (a real child JVM) abandons the runs that will not stop, turns not ready past {@code
 * worker.max-abandoned-runs}, leaves the consumer group and exits with code 3; a healthy task's
 * instances keep running on the other worker.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HungRunTest {
  private WorkerTestKit kit;
  private WorkerProcess hung;

  @BeforeEach
  void setUp() {
    kit = new WorkerTestKit("worker_hung", 4);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    if (hung != null) {
      hung.close();
    }
    kit.close();
  }

  @Test
  void a_worker_whose_runs_ignore_interrupts_gives_up_and_the_other_keeps_the_healthy_task_going()
      throws Exception {
    kit.tasks.applyAll(
        List.of(
            Tasks.daily("deaf")
                .queue("deaf")
                .handler("counting")
                .paramsJson("{\"duration\":\"600s\",\"ignoreInterrupts\":true}")
                .build(),
            Tasks.daily("healthy").handler("counting").build()));
    kit.queueTopic("deaf");
    Map<String, String> config = new HashMap<>(kit.config("hung-1", Map.of()));
    config.put("worker.queues", "default,deaf");
    config.put("worker.max-abandoned-runs", "2");
    config.put("worker.stop-grace", "1s");
    config.put("worker.fence-margin", "2s");
    config.put("worker.concurrency", "4");
    config.put("db.pool-size", "4");
    config.remove("admin.port");
    hung = WorkerProcess.start(config);
    WorkerService steady = kit.worker("steady-1", Map.of());
    PresenceStore presence = new PresenceStore(kit.db.dsl());
    await("both workers registered ready")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(presence.live().workers())
                    .as(hung.output())
                    .filteredOn(WorkerPresence::ready)
                    .extracting(WorkerPresence::workerId)
                    .contains("hung-1", "steady-1"));

    List<Instance> healthy = new ArrayList<>();
    for (int k = 0; k < 8; k++) {
      healthy.add(kit.instance("healthy", "before-" + k, Duration.ofSeconds(30)));
    }
    kit.publish(healthy.toArray(Instance[]::new));
    // Two runs that ignore the interrupt of their 2 s deadline (counting with ignoreInterrupts):
    // only the child serves queue deaf.
    kit.publish(
        kit.instance("deaf", "d1", Duration.ofSeconds(2)),
        kit.instance("deaf", "d2", Duration.ofSeconds(2)));

    await("the hung worker reports not ready")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () ->
                assertThat(hung.ready())
                    .as(hung.output())
                    .hasValueSatisfying(
                        body ->
                            assertThat(body)
                                .contains("\"status\":\"DOWN\"")
                                .contains("\"abandonedRuns\":2")));
    List<Instance> after = new ArrayList<>();
    for (int k = 0; k < 8; k++) {
      after.add(kit.instance("healthy", "after-" + k, Duration.ofSeconds(30)));
    }
    kit.publish(after.toArray(Instance[]::new));

    assertThat(hung.process.waitFor(60, TimeUnit.SECONDS)).as(hung.output()).isTrue();
    assertThat(hung.exitCode()).as(hung.output()).contains(WorkerService.EXIT_GAVE_UP);
    assertThat(hung.output())
        .contains("gives up: 2 run(s) were asked to stop and did not end")
        .contains("leaves the consumer group");
    assertThat(members(kit)).as("the hung worker left the group").containsExactly("steady-1");

    await("every healthy instance succeeds")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> {
              for (Instance i : healthy) {
                assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              }
              for (Instance i : after) {
                assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS);
              }
            });
    for (Instance i : after) {
      assertThat(kit.find(i.id()).workerId())
          .as("published after the hung worker gave up")
          .isEqualTo("steady-1");
    }
    assertThat(
            kit.db
                .dsl()
                .fetchCount(
                    TASK_INSTANCE,
                    TASK_INSTANCE
                        .TASK_ID
                        .eq("healthy")
                        .and(TASK_INSTANCE.STATUS.ne(InstanceStatus.SUCCESS.name()))))
        .isZero();
    assertThat(steady.metrics().abandoned.count()).isZero();
  }

  /** The group instance ids of the group's members now. */
  private static List<String> members(WorkerTestKit kit) throws Exception {
    try (Admin admin = Admin.create(kit.kafka.adminProps())) {
      return admin
          .describeConsumerGroups(List.of(kit.group))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(kit.group)
          .members()
          .stream()
          .map(MemberDescription::groupInstanceId)
          .map(o -> o.orElse("<dynamic>"))
          .sorted()
          .toList();
    }
  }
}
