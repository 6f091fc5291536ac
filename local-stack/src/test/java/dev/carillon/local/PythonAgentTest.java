package dev.carillon.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.retry.RetryService;
import dev.carillon.schedctl.Schedctl;
import dev.carillon.spec.Format;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.worker.WorkerService;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example Python agent ({@code examples/agents/summarize.py}) end to end on devstack: the real
 * worker runs it as an exec agent and the real retry service decides what happens next. Skipped
 * when python3 is not installed.
 */
@Timeout(300)
class PythonAgentTest {
  private static final Path SUMMARIZE =
      Path.of("..", "examples", "agents", "summarize.py").toAbsolutePath().normalize();
  private static final Path STUBBORN =
      Path.of("src", "test", "resources", "agents", "stubborn.py").toAbsolutePath();

  private static final ObjectMapper JSON = new ObjectMapper();

  private static DevStack stack;
  private static String dbUrl;
  private static Database db;
  private static OperatorStore operator;
  private static WindowStore windows;
  private static String topic;
  private static WorkerService worker;
  private static RetryService retry;
  private static Path python;

  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    Optional<Path> found = python3();
    Assumptions.assumeTrue(
        found.isPresent(), "python3 is not on the PATH: skipping the Python agent tests");
    python = found.get();
    stack = DevStack.shared();
    dbUrl = stack.createDatabase("python_agents");
    db = Database.open(new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 2));
    operator = new OperatorStore(db.dsl());
    windows = new WindowStore(db.dsl());
    String unique = UUID.randomUUID().toString().substring(0, 8);
    topic = "test.python." + unique;
    stack.createTopic(topic, 1);
    Map<String, String> common = new HashMap<>();
    common.put("db.url", dbUrl);
    common.put("db.user", stack.dbUser());
    common.put("db.password", stack.dbPassword());
    common.put("kafka.bootstrap", stack.kafkaBootstrap());
    common.put("zk.connect", stack.zkConnect());
    common.put("admin.port", "0");
    // As the deploy steps leave them: the topics made, with this many partitions.
    common.put("kafka.instances-partitions", "1");

    Map<String, String> w = new HashMap<>(common);
    w.put("instance.id", "python-worker");
    w.put("worker.topic", topic);
    w.put("worker.group", "python-" + unique);
    w.put("worker.heartbeat-interval", "200ms");
    w.put("worker.task-cache-ttl", "0s");
    w.put("worker.drain-timeout", "2s");
    worker = WorkerService.start(Config.of(w));

    Map<String, String> r = new HashMap<>(common);
    r.put("instance.id", "python-retry");
    r.put("retry.instances-topic", topic);
    stack.createCompactedTopic("test.python.config." + unique);
    r.put("retry.config-topic", "test.python.config." + unique);
    r.put("retry.scan-interval", "200ms");
    retry = RetryService.start(Config.of(r), Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    if (retry != null) {
      retry.close();
    }
    if (worker != null) {
      worker.close();
    }
    if (db != null) {
      db.close();
    }
  }

  private static Optional<Path> python3() {
    String path = System.getenv("PATH");
    for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
      Path p = Path.of(d, "python3");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Applies one task spec written as YAML, as {@code schedctl apply} reads it. */
  private static void apply(String yaml) {
    new TaskStore(db.dsl())
        .applyAll(SpecReader.read("tasks:\n" + yaml, Format.YAML, "python-tasks.yaml"));
  }

  /** A summarize task's spec, running the example with these params. */
  private static String summarizeTask(String id, String extra, String params) {
    return "  - id: "
        + id
        + "\n    handler: exec\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
        + extra
        + "    params:\n      exec: { command: ["
        + python
        + ", "
        + SUMMARIZE
        + "], grace: 2s }\n"
        + params;
  }

  /** A PENDING instance of {@code taskId}, published as the trigger would. */
  private static Instance run(String taskId, Duration timeout) {
    return run(taskId, timeout, 3);
  }

  /** A PENDING instance of {@code taskId} with {@code maxRetry}, published as the trigger would. */
  private static Instance run(String taskId, Duration timeout, int maxRetry) {
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    NewInstance pending =
        NewInstance.pending(
            taskId,
            new Window("w1", start, start.plusSeconds(3600)),
            start,
            Origin.MANUAL,
            timeout,
            maxRetry);
    Instance i = windows.create(List.of(pending), "test").get(0);
    try (InstancePublisher p =
        new InstancePublisher(
            KafkaSettings.of(stack.kafkaBootstrap()), topic, Duration.ofSeconds(10))) {
      assertThat(
              p.publish(
                  List.of(InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), Instant.now()))))
          .hasSize(1);
    }
    return i;
  }

  private static Instance find(long id) {
    return operator.find(id).orElseThrow();
  }

  private static String schedctl(String... args) {
    Map<String, String> env =
        Map.of(
            Config.envName("db.url"), dbUrl,
            Config.envName("db.user"), stack.dbUser(),
            Config.envName("db.password"), stack.dbPassword(),
            Config.envName("kafka.bootstrap"), stack.kafkaBootstrap(),
            Config.envName("zk.connect"), stack.zkConnect());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        new Schedctl()
            .run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
    assertThat(exit).as("schedctl %s; stderr: %s", String.join(" ", args), err).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static Path file(String name, String text) throws Exception {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  @Test
  void the_example_agent_succeeds_and_describe_shows_its_progress_and_result() throws Exception {
    Path a = file("a.txt", "Bells ring the hours.\nThe carillon plays every quarter hour.\n");
    Path b = file("b.txt", "Windows open and close; every window runs once.\n");
    Path out = dir.resolve("reports");
    apply(
        summarizeTask(
            "py-summary",
            "",
            "      paths: [" + a + ", " + b + "]\n      outDir: " + out + "\n      top: 3\n"));
    Instance i = run("py-summary", Duration.ofSeconds(60));

    await("the Python agent succeeds")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    Instance done = find(i.id());
    assertThat(done.resultSummary()).startsWith("2 file(s), 18 words; most common: ");
    assertThat(done.resultUri()).startsWith("file:").endsWith("py-summary_w1.json");
    assertThat(Path.of(URI.create(done.resultUri()))).exists();
    assertThat(done.progress()).isEqualTo("2 of 2 files summarised");

    String described = schedctl("describe", "instance", Long.toString(i.id()));
    assertThat(described)
        .containsPattern("progress:\\s+2 of 2 files summarised \\(reported 20\\d\\d-")
        .contains("2 file(s), 18 words");
  }

  @Test
  void a_file_that_is_not_there_yet_fails_retryable_and_the_retry_succeeds() throws Exception {
    Path ready = file("ready.txt", "one two three\n");
    Path later = dir.resolve("later.txt");
    apply(
        summarizeTask(
            "py-retry",
            "    retry: { policy: DELAYED, delays: [1s], maxRetries: 5 }\n",
            "      paths: [" + ready + ", " + later + "]\n      outDir: " + dir + "\n"));
    Instance i = run("py-retry", Duration.ofSeconds(60));

    await("the first attempt fails with EX_TEMPFAIL")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(operator.events(i.id()))
                    .extracting(InstanceEvent::reason)
                    .anySatisfy(
                        r ->
                            assertThat(r)
                                .isEqualTo(
                                    "exit 75 (EX_TEMPFAIL, retryable): not ready: "
                                        + later
                                        + " does not exist yet")));
    Files.writeString(later, "four five six seven\n");

    await("a retry succeeds once the file is there")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    Instance done = find(i.id());
    assertThat(done.retryCount()).isGreaterThanOrEqualTo(1);
    assertThat(done.attempt()).isGreaterThanOrEqualTo(2);
    assertThat(done.resultSummary()).startsWith("2 file(s), 7 words");
  }

  @Test
  void a_path_that_is_not_a_file_fails_non_retryable_and_goes_dead_despite_the_retry_policy() {
    apply(
        summarizeTask(
            "py-dead",
            "    retry: { policy: IMMEDIATE, maxRetries: 3 }\n",
            "      paths: [" + dir + "]\n"));
    Instance i = run("py-dead", Duration.ofSeconds(60));

    await("the instance is DEAD")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(find(i.id()).status()).isEqualTo(InstanceStatus.DEAD));
    Instance dead = find(i.id());
    assertThat(dead.attempt()).isEqualTo(1);
    assertThat(dead.retryCount()).isZero();
    assertThat(dead.nonRetryable()).isTrue();
    String agentSaid = "exit 65 (EX_DATAERR, non-retryable): " + dir + " is not a regular file";
    assertThat(operator.events(i.id()))
        .anySatisfy(
            e -> {
              assertThat(e.to()).isEqualTo(InstanceStatus.FAILED);
              assertThat(e.reason()).isEqualTo(agentSaid);
            });
    assertThat(dead.failReason()).startsWith("failure is non-retryable").endsWith(agentSaid);
  }

  @Test
  void a_timeout_kills_the_agent_and_its_own_child_and_no_process_of_the_run_is_left() {
    apply(
        "  - id: py-stubborn\n    handler: exec\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
            + "    params:\n      exec: { command: ["
            + python
            + ", "
            + STUBBORN
            + "], grace: 1s }\n");
    Instance i = run("py-stubborn", Duration.ofSeconds(3));
    await("the agent reports its pid and its child's")
        .atMost(Duration.ofSeconds(60))
        .until(() -> find(i.id()).progress() != null);
    String[] pids = find(i.id()).progress().split(" ");
    ProcessHandle agent = ProcessHandle.of(Long.parseLong(pids[0])).orElseThrow();
    ProcessHandle child = ProcessHandle.of(Long.parseLong(pids[1])).orElseThrow();
    assertThat(agent.isAlive()).isTrue();
    assertThat(child.isAlive()).isTrue();

    await("the run times out and, not retryable, is DEAD")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(() -> assertThat(find(i.id()).status()).isEqualTo(InstanceStatus.DEAD));
    assertThat(operator.events(i.id()))
        .anySatisfy(e -> assertThat(e.to()).isEqualTo(InstanceStatus.TIMEOUT));
    // Both ignore SIGTERM; SIGKILL after the 1 s grace ends them. The handles carry the start
    // time, so a reused pid does not count as the same process.
    await("no process of the run is left")
        .atMost(Duration.ofSeconds(15))
        .untilAsserted(
            () -> {
              assertThat(agent.isAlive()).as("agent pid %d", agent.pid()).isFalse();
              assertThat(child.isAlive()).as("its child pid %d", child.pid()).isFalse();
            });
  }

  @Test
  void a_timed_out_run_is_retried_and_resumes_from_its_checkpoint() throws Exception {
    // Six seconds of work (four files, 1.5 s each) under a four-second timeout: no attempt can do
    // it all, so the instance succeeds only if each retry continues after the files its
    // predecessor checkpointed instead of starting again.
    StringBuilder paths = new StringBuilder();
    for (int n = 1; n <= 4; n++) {
      paths
          .append(n == 1 ? "" : ", ")
          .append(file("part" + n + ".txt", "part " + n + " of four\n"));
    }
    Path out = dir.resolve("resumed");
    apply(
        summarizeTask(
            "py-resume",
            "    retry: { policy: IMMEDIATE, maxRetries: 10 }\n",
            "      paths: [" + paths + "]\n      outDir: " + out + "\n      pace: 1.5\n"));
    Instance i = run("py-resume", Duration.ofSeconds(4), 10);

    await("the instance succeeds across timed-out attempts")
        .atMost(Duration.ofSeconds(120))
        .untilAsserted(() -> assertThat(find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    Instance done = find(i.id());
    assertThat(done.attempt()).isGreaterThanOrEqualTo(2);
    assertThat(operator.events(i.id()))
        .filteredOn(e -> e.to() == InstanceStatus.TIMEOUT)
        .as("attempts that timed out")
        .hasSize(done.attempt() - 1);
    assertThat(done.resultSummary()).startsWith("4 file(s), 8 words");
    JsonNode report = JSON.readTree(Path.of(URI.create(done.resultUri())).toFile());
    assertThat(report.get("resumedFrom").asInt())
        .as("the last attempt resumed from its predecessor's checkpoint")
        .isEqualTo(done.attempt() - 1);
    // Each attempt's last checkpoint covers more files than the one before it: every attempt
    // continued where the last one stopped.
    List<Integer> covered =
        operator.checkpoints(i.id()).stream()
            .map(c -> readState(c.stateJson()).get("files").size())
            .toList();
    assertThat(covered).hasSizeGreaterThanOrEqualTo(2).isSorted().doesNotHaveDuplicates();
    assertThat(covered.get(covered.size() - 1)).isEqualTo(4);
    assertThat(schedctl("describe", "instance", Long.toString(i.id())))
        .contains("Checkpoints (the last of each attempt):");
  }

  private static JsonNode readState(String json) {
    try {
      return JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
