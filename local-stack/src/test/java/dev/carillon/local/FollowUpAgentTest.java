package dev.carillon.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.agents.followup.FollowUpAgent;
import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.client.CarillonClient;
import dev.carillon.client.InstanceQuery;
import dev.carillon.client.TaskSpec;
import dev.carillon.client.model.InstanceView;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import dev.carillon.worker.WorkerSettings;
import dev.carillon.worker.plugin.PluginRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client guide's follow-up agent end to end on devstack: the real trigger (serving the API)
 * fires a one-shot task, the real worker runs its first step, and the agent schedules each next
 * step through the HTTP API with the Java client, keyed so that a re-run of a step gets the
 * follow-up it already scheduled instead of a second one.
 */
@Timeout(180)
class FollowUpAgentTest {
  private static final String TASK = "chain";

  @TempDir static Path dir;

  private static TriggerService trigger;
  private static WorkerService worker;
  private static CarillonClient client;

  @BeforeAll
  static void start() throws Exception {
    DevStack stack = DevStack.shared();
    String dbUrl = stack.createDatabase("follow_up");
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String topic = "test.follow-up." + unique;
    stack.createTopic(topic, 1);
    String token = Tokens.mint();
    Path tokens = dir.resolve("api-tokens");
    Files.writeString(
        tokens,
        TokenFile.line(new Principal("follow-up-agent", Role.OPERATOR), token) + "\n",
        StandardCharsets.UTF_8);
    Map<String, String> common = new HashMap<>();
    common.put("db.url", dbUrl);
    common.put("db.user", stack.dbUser());
    common.put("db.password", stack.dbPassword());
    common.put("kafka.bootstrap", stack.kafkaBootstrap());
    common.put("zk.connect", stack.zkConnect());
    common.put("admin.port", "0");
    // As the deploy steps leave them: the schema migrated, the topic with this many partitions.
    common.put("db.migrate", "true");
    common.put("kafka.instances-partitions", "1");

    Map<String, String> t = new HashMap<>(common);
    t.put("instance.id", "follow-up-trigger");
    t.put("trigger.topic", topic);
    t.put("api.port", "0");
    t.put("api.bind-address", "127.0.0.1");
    t.put("api.tokens-file", tokens.toString());
    trigger = TriggerService.start(Config.of(t), Clock.systemUTC());
    client =
        CarillonClient.builder()
            .fromEnvironment(
                Map.of(
                    CarillonClient.ENV_URL,
                    "http://127.0.0.1:" + trigger.apiPort(),
                    CarillonClient.ENV_TOKEN,
                    token))
            .requestTimeout(Duration.ofSeconds(20))
            .build();

    Map<String, String> w = new HashMap<>(common);
    w.put("instance.id", "follow-up-worker");
    w.put("worker.topic", topic);
    w.put("worker.group", "follow-up-" + unique);
    w.put("worker.task-cache-ttl", "0s");
    w.put("worker.drain-timeout", "2s");
    worker =
        WorkerService.start(
            WorkerSettings.from(Config.of(w)),
            PluginRegistry.of(List.of(new FollowUpAgent(client))),
            Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    if (worker != null) {
      worker.close();
    }
    if (trigger != null) {
      trigger.close();
    }
  }

  private static List<InstanceView> instances() {
    return client
        .listInstances(InstanceQuery.all().withTask(TASK))
        .sorted(Comparator.comparingLong(InstanceView::id))
        .toList();
  }

  @Test
  void each_step_schedules_the_next_once_and_a_re_run_step_gets_the_same_follow_up() {
    Instant at = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
    client.apply(TaskSpec.once(TASK, FollowUpAgent.TYPE, at).params(Map.of("steps", 3)));

    await("the one-shot's step 1 and the two follow-ups it chains to succeed")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () ->
                assertThat(instances())
                    .hasSize(3)
                    .allSatisfy(i -> assertThat(i.status()).isEqualTo("SUCCESS")));
    List<InstanceView> chain = instances();
    InstanceView first = chain.get(0);
    assertThat(first.origin()).isIn("SCHEDULE", "CATCHUP");
    assertThat(first.scheduledAt()).isEqualTo(at);
    assertThat(first.resultSummary())
        .isEqualTo(
            "step 1 of 3 done; step 2 is instance " + chain.get(1).id() + " (scheduled now)");
    assertThat(chain.get(1).origin()).isEqualTo("MANUAL");
    assertThat(chain.get(1).paramsOverride().toString()).isEqualTo("{\"step\":2}");
    assertThat(chain.get(1).resultSummary())
        .isEqualTo(
            "step 2 of 3 done; step 3 is instance " + chain.get(2).id() + " (scheduled now)");
    assertThat(chain.get(2).paramsOverride().toString()).isEqualTo("{\"step\":3}");
    assertThat(chain.get(2).resultSummary()).isEqualTo("step 3 of 3 done; the last, no follow-up");

    // Step 1 again, as a retry or an operator's re-run would run it: a new attempt of the same
    // instance, so the same idempotency key, and the API answers the follow-up it created before.
    client.rerun(first.id(), "a retried step must not schedule a second follow-up");
    await("the re-run of step 1 to succeed")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              InstanceView again = client.instance(first.id());
              assertThat(again.attempt()).isEqualTo(2);
              assertThat(again.status()).isEqualTo("SUCCESS");
            });
    assertThat(client.instance(first.id()).resultSummary())
        .isEqualTo(
            "step 1 of 3 done; step 2 is instance "
                + chain.get(1).id()
                + " (already scheduled by an earlier attempt)");
    assertThat(instances())
        .extracting(InstanceView::id)
        .containsExactlyElementsOf(chain.stream().map(InstanceView::id).toList());
  }
}
