package dev.carillon.worker;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.config.Config;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.retry.RetryService;
import dev.carillon.store.PresenceStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.worker.plugin.PluginRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18's queues must-show: two queues and two workers with different plugins. Worker A serves
 * queue default with handler alpha; worker B serves queues default and gpu with handler beta, so
 * queue default mixes handlers across workers. Every instance runs on a worker that has its handler
 * (a record that lands on the other worker is left PENDING and published again by the retry
 * service), none fails for want of a plugin, and an instance that no worker serves waits, says why,
 * and is counted.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class QueuesTest {
  private WorkerTestKit kit;
  private RetryService retry;

  /** A plugin of the given type that succeeds at once, saying what it is. */
  record Named(String type) implements AgentTask {
    @Override
    public AgentResult run(AgentContext context) {
      return AgentResult.of("ran by " + type);
    }
  }

  @BeforeEach
  void setUp() {
    kit = new WorkerTestKit("worker_queues", 4);
  }

  @AfterEach
  void tearDown() {
    if (retry != null) {
      retry.close();
    }
    kit.close();
  }

  private WorkerService worker(String id, String queues, String handler) {
    Map<String, String> c = new HashMap<>(kit.config(id, Map.of("worker.queues", queues)));
    WorkerService w =
        WorkerService.start(
            WorkerSettings.from(Config.of(c)),
            PluginRegistry.of(List.of(new Named(handler))),
            Clock.systemUTC());
    kit.track(w);
    return w;
  }

  @Test
  void every_instance_runs_on_a_worker_with_its_handler_and_one_nobody_serves_waits_and_says_why() {
    kit.tasks.applyAll(
        List.of(
            Tasks.daily("t-alpha").handler("alpha").build(),
            Tasks.daily("t-beta").handler("beta").build(),
            Tasks.daily("t-gpu").queue("gpu").handler("beta").build(),
            Tasks.daily("t-nobody").queue("tpu").handler("alpha").build()));
    // The create-topics step's work (kafka.queues=gpu,tpu): services create no topics.
    kit.queueTopic("gpu");
    kit.queueTopic("tpu");
    worker("queue-a", "default", "alpha");
    worker("queue-b", "default,gpu", "beta");
    Map<String, String> retryConfig = new HashMap<>(kit.config("queue-retry", Map.of()));
    retryConfig.put("zk.connect", kit.stack.zkConnect());
    retryConfig.put("retry.instances-topic", kit.topic);
    retryConfig.put("retry.config-topic", kit.newCompactedTopic("config"));
    retryConfig.put("retry.scan-interval", "200ms");
    retryConfig.put("retry.stranded-after", "1s");
    retryConfig.put("retry.undispatched-after", "1s");
    retryConfig.put("retry.rate.per-task-per-second", "1000");
    retry = RetryService.start(Config.of(retryConfig), Clock.systemUTC());

    List<Instance> all = new ArrayList<>();
    for (String task : List.of("t-alpha", "t-beta", "t-gpu")) {
      for (int k = 0; k < 20; k++) {
        all.add(kit.instance(task, "w" + k, Duration.ofSeconds(30)));
      }
    }
    Instance nobody = kit.instance("t-nobody", "w0", Duration.ofSeconds(30));
    all.add(nobody);
    kit.publish(all.toArray(Instance[]::new));

    await("every served instance succeeds")
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () -> {
              for (Instance i : all) {
                if (i != nobody) {
                  assertThat(kit.find(i.id()).status())
                      .as("instance %s of %s", i.id(), i.taskId())
                      .isEqualTo(InstanceStatus.SUCCESS);
                }
              }
            });
    for (Instance i : all) {
      if (i == nobody) {
        continue;
      }
      Instance done = kit.find(i.id());
      assertThat(done.workerId())
          .as("instance %s of %s", i.id(), i.taskId())
          .isEqualTo(i.taskId().equals("t-alpha") ? "queue-a" : "queue-b");
      assertThat(done.resultSummary())
          .isEqualTo(i.taskId().equals("t-alpha") ? "ran by alpha" : "ran by beta");
      assertThat(done.attempt()).as("claimed once, by a worker that has the handler").isEqualTo(1);
    }
    assertThat(
            kit.db
                .dsl()
                .fetchCount(
                    INSTANCE_EVENT, INSTANCE_EVENT.TO_STATUS.eq(InstanceStatus.FAILED.name())))
        .as("nothing failed for want of a plugin")
        .isZero();

    Instance waiting = kit.find(nobody.id());
    assertThat(waiting.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(waiting.attempt()).isZero();
    assertThat(new PresenceStore(kit.db.dsl()).whyWaiting("tpu", "alpha"))
        .hasValue(
            "no worker serves queue tpu with handler alpha (handler alpha is on queue-a, serving"
                + " queues default)");
    await("the retry service counts the instance that waits for a worker")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(retry.metrics().waitingForWorker()).containsEntry("tpu", 1));
  }

  @Test
  void a_worker_refuses_to_start_when_a_queue_it_serves_has_no_topic_and_creates_none() {
    kit.queueTopic("gpu");
    String missing = Topics.instances(kit.topic, "tpu");

    assertThatThrownBy(() -> worker("queue-no-topic", "default,gpu,tpu", "alpha"))
        .isInstanceOf(TopicAdmin.TopicException.class)
        .hasMessageContaining("topic " + missing + " does not exist")
        .hasMessageContaining("create-topics")
        .hasMessageContaining("queue tpu in kafka.queues")
        .hasMessageContaining("at least " + kit.partitions + " partition(s)")
        .hasMessageNotContaining(Topics.instances(kit.topic, "gpu"));
    try (Admin admin = Admin.create(kit.kafka.adminProps())) {
      assertThat(TopicAdmin.exists(admin, missing, Duration.ofSeconds(10)))
          .as("the worker created no topic")
          .isEqualTo(TopicAdmin.Presence.MISSING);
    }
  }

  @Test
  void a_worker_refuses_a_queue_topic_with_fewer_partitions_than_configured() {
    kit.stack.createTopic(Topics.instances(kit.topic, "gpu"), 1);

    assertThatThrownBy(() -> worker("queue-small-topic", "gpu", "alpha"))
        .isInstanceOf(TopicAdmin.TopicException.class)
        .hasMessageContaining(
            "topic "
                + Topics.instances(kit.topic, "gpu")
                + " has 1 partition(s) but at least "
                + kit.partitions
                + " are needed");
  }
}
