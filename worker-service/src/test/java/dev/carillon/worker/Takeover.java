package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.PresenceStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The fast-takeover scenario with real processes: a worker (a child JVM) serving its own queue runs
 * an instance, is killed with {@code kill -9}, {@value #NEXT} instances of its queue are published
 * while it is dead (spread over the partitions), and a worker is started again; the result is the
 * time from that start to the first and to the last claim of those instances (the claims' {@code
 * started_at}, database time, on the same machine).
 */
final class Takeover {
  /** Instances published while no worker runs. */
  static final int NEXT = 8;

  /**
   * From the new worker's start to its first claim and to its last.
   *
   * @param first the first of the instances published while no worker ran was claimed
   * @param last all of them were
   */
  record Result(Duration first, Duration last) {}

  private Takeover() {}

  /**
   * @param protocol {@code classic} or {@code consumer}
   * @param staticMembership whether the workers are static members
   * @param sameId whether the new worker uses the dead one's id (a restart) or a new one (a join)
   * @param partitions partitions of the queue's topic
   */
  static Result measure(
      WorkerTestKit kit,
      String queue,
      String protocol,
      boolean staticMembership,
      boolean sameId,
      int partitions)
      throws Exception {
    String task = "takeover-" + queue;
    kit.stack.createTopic(kit.topic + "." + queue, partitions);
    kit.tasks.applyAll(List.of(Tasks.daily(task).queue(queue).handler("counting").build()));
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
      List<Instance> next = new ArrayList<>();
      for (int k = 0; k < NEXT; k++) {
        next.add(kit.instance(task, "next-" + k, Duration.ofSeconds(30)));
      }
      kit.publish(next.toArray(Instance[]::new));
      if (!sameId) {
        config.put("instance.id", queue + "-2");
      }
      second = WorkerProcess.start(config);
      WorkerProcess started = second;
      await("the queue's next instances are claimed by the new worker")
          .atMost(Duration.ofSeconds(180))
          .untilAsserted(
              () -> {
                for (Instance i : next) {
                  assertThat(kit.find(i.id()).startedAt()).as(started.output()).isNotNull();
                }
              });
      List<Instance> claimed = next.stream().map(i -> kit.find(i.id())).toList();
      assertThat(claimed).extracting(Instance::workerId).containsOnly(config.get("instance.id"));
      List<Instant> at = claimed.stream().map(Instance::startedAt).sorted().toList();
      return new Result(
          Duration.between(second.startedAt, at.get(0)),
          Duration.between(second.startedAt, at.get(NEXT - 1)));
    } finally {
      first.close();
      if (second != null) {
        second.close();
      }
      // The killed worker's presence row would expire by itself; remove both for the next run.
      PresenceStore presence = new PresenceStore(kit.db.dsl());
      presence.remove(queue + "-1");
      presence.remove(queue + "-2");
    }
  }
}
