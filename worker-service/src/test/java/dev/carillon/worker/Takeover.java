package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.worker.WorkerPresence;
import dev.carillon.store.PresenceStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fast-takeover scenario with real processes: a worker (a child JVM) serving its own queue runs
 * an instance, is killed with {@code kill -9}, an instance of its queue is published while it is
 * dead, and a worker is started again; the result is the time from that start to the claim of the
 * instance (the claim's {@code started_at}, database time, on the same machine).
 */
final class Takeover {
  private Takeover() {}

  /**
   * @param protocol {@code classic} or {@code consumer}
   * @param staticMembership whether the workers are static members
   * @param sameId whether the new worker uses the dead one's id (a restart) or a new one (a join)
   * @param partitions partitions of the queue's topic
   * @return from the new process's start to the claim of the instance published while none ran
   */
  static Duration measure(
      WorkerTestKit kit,
      String queue,
      String protocol,
      boolean staticMembership,
      boolean sameId,
      int partitions)
      throws Exception {
    String task = "takeover-" + queue;
    kit.stack.createTopic(kit.topic + "." + queue, partitions);
    kit.tasks.applyAll(List.of(Tasks.daily(task).queue(queue).handler("noop").build()));
    Map<String, String> config = new HashMap<>(kit.config(queue + "-1", Map.of()));
    config.remove("admin.port");
    config.put("worker.queues", queue);
    config.put("worker.group-protocol", protocol);
    config.put("worker.static-membership", Boolean.toString(staticMembership));
    config.put("db.pool-size", "3");
    WorkerProcess first = WorkerProcess.start(config);
    WorkerProcess second = null;
    try {
      Instance warmUp = kit.instance(task, "warm-up", Duration.ofSeconds(30));
      kit.publish(warmUp);
      await("the first worker runs an instance of its queue")
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () ->
                  assertThat(kit.find(warmUp.id()).status())
                      .as(first.output())
                      .isEqualTo(InstanceStatus.SUCCESS));
      first.kill9();
      Instance next = kit.instance(task, "next", Duration.ofSeconds(30));
      kit.publish(next);
      if (!sameId) {
        config.put("instance.id", queue + "-2");
      }
      second = WorkerProcess.start(config);
      WorkerProcess started = second;
      Instant startedAt = second.startedAt;
      await("the queue's next instance is claimed by the new worker")
          .atMost(Duration.ofSeconds(120))
          .untilAsserted(
              () -> assertThat(kit.find(next.id()).startedAt()).as(started.output()).isNotNull());
      Instance claimed = kit.find(next.id());
      assertThat(claimed.workerId()).isEqualTo(config.get("instance.id"));
      return Duration.between(startedAt, claimed.startedAt());
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
      // The killed worker's presence row expires by itself; remove both for the next scenario.
      PresenceStore presence = new PresenceStore(kit.db.dsl());
      presence.remove(queue + "-1");
      presence.remove(queue + "-2");
    }
  }

  /** Whether a worker with this id has a live presence row. */
  static boolean live(WorkerTestKit kit, String workerId) {
    return new PresenceStore(kit.db.dsl())
        .live().workers().stream().map(WorkerPresence::workerId).anyMatch(workerId::equals);
  }
}
