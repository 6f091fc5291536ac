package dev.carillon.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.store.DbSettings;
import dev.carillon.testsupport.TestDatabase;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The trigger as a process with the logging configuration its jar ships (the module's main classes
 * and libraries, none of the tests' logback-test.xml): a standby writes a few INFO lines and no
 * DEBUG, JSON lines on request, and an unknown format stops it at once.
 */
@ExtendWith(DevStackExtension.class)
class ShippedLoggingTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private DbSettings db;
  private final String topic = "logging-" + java.util.UUID.randomUUID();
  private TriggerService leader;
  private Process process;
  private final List<String> out = new CopyOnWriteArrayList<>();
  private final List<String> err = new CopyOnWriteArrayList<>();

  @BeforeEach
  void leader(DevStack stack) {
    db = TestDatabase.settings("trigger_logging");
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("admin.port", "0");
    c.put("instance.id", "in-process-leader");
    c.put("api.port", "0");
    c.put("api.bind-address", "127.0.0.1");
    c.put("api.insecure-local", "true");
    // Its own topic, created up front as the create-topics step does, and the schema migrated by
    // this first service (the standby process only checks it).
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    c.put("db.migrate", "true");
    stack.createTopic(topic, 2);
    leader = TriggerService.start(Config.of(c), Clock.systemUTC());
    await("the in-process trigger to lead").atMost(DEADLINE).until(leader::isLeader);
  }

  @AfterEach
  void stop() throws Exception {
    if (process != null && process.isAlive()) {
      process.destroy();
      process.waitFor(30, TimeUnit.SECONDS);
      process.destroyForcibly();
    }
    leader.close();
  }

  /** The main class path of this module: the test class path without test classes and jars. */
  private static String mainClassPath() {
    String cp =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(cp.split(File.pathSeparator))
        .filter(e -> !e.endsWith("test-classes") && !e.endsWith("-tests.jar"))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private void startStandby(DevStack stack, String logFormat) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(
            ProcessHandle.current().info().command().orElse("java"),
            "-Xmx256m",
            "-cp",
            mainClassPath(),
            TriggerMain.class.getName());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("CARILLON_"));
    env.put("CARILLON_DB_URL", db.url());
    env.put("CARILLON_DB_USER", db.user());
    env.put("CARILLON_DB_PASSWORD", db.password());
    env.put("CARILLON_KAFKA_BOOTSTRAP", stack.kafkaBootstrap());
    env.put("CARILLON_ZK_CONNECT", stack.zkConnect());
    env.put("CARILLON_ADMIN_PORT", "0");
    env.put("CARILLON_INSTANCE_ID", "standby-process");
    env.put("CARILLON_API_PORT", "0");
    env.put("CARILLON_API_BIND_ADDRESS", "127.0.0.1");
    env.put("CARILLON_API_INSECURE_LOCAL", "true");
    env.put("CARILLON_TRIGGER_TOPIC", topic);
    env.put("CARILLON_KAFKA_INSTANCES_PARTITIONS", "2");
    if (logFormat != null) {
      env.put("CARILLON_LOG_FORMAT", logFormat);
    }
    process = pb.start();
    drain(process.getInputStream(), out);
    drain(process.getErrorStream(), err);
  }

  private static void drain(java.io.InputStream in, List<String> lines) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (IOException e) {
                // the process ended
              }
            },
            "standby-output");
    t.setDaemon(true);
    t.start();
  }

  private boolean joined() {
    return out.stream().anyMatch(l -> l.contains("standby-process joined the election"));
  }

  @Test
  void a_standby_trigger_logs_a_few_info_lines_and_no_debug(DevStack stack) throws Exception {
    startStandby(stack, null);
    await("the standby to join the election")
        .atMost(DEADLINE)
        .until(() -> joined() || !process.isAlive());
    assertThat(process.isAlive()).as("alive; stderr %s, stdout %s", err, out).isTrue();
    // Five seconds of standing by: no DEBUG line, and the process stays up.
    await("five quiet seconds of the standby")
        .during(Duration.ofSeconds(5))
        .atMost(Duration.ofSeconds(10))
        .until(() -> process.isAlive() && out.stream().noneMatch(l -> l.contains(" DEBUG ")));
    assertThat(out).noneMatch(l -> l.contains(" DEBUG ") || l.contains(" TRACE "));
    assertThat(out).allMatch(l -> l.matches("^\\d{4}-\\d\\d-\\d\\dT.* (INFO |WARN |ERROR) .*"));
    // The libraries' lifecycle chatter is gone: no Kafka config dump, no ZooKeeper client banner.
    assertThat(out).noneMatch(l -> l.contains("ProducerConfig values"));
    assertThat(out).noneMatch(l -> l.contains("org.apache.zookeeper"));
    assertThat(out).noneMatch(l -> l.contains("jOOQ"));
    assertThat(out.size()).as("lines written: %s", out).isLessThan(30);
    assertThat(err).isEmpty();
  }

  @Test
  void json_lines_on_request(DevStack stack) throws Exception {
    startStandby(stack, "json");
    await("the standby to join the election")
        .atMost(DEADLINE)
        .until(
            () ->
                !process.isAlive()
                    || out.stream().anyMatch(l -> l.contains("joined the election")));
    assertThat(process.isAlive()).as("alive; stderr %s", err).isTrue();
    ObjectMapper json = new ObjectMapper();
    for (String line : out) {
      assertThat(json.readTree(line).get("level").asText()).isIn("INFO", "WARN", "ERROR");
    }
  }

  @Test
  void an_unknown_log_format_stops_the_start_with_exit_code_2(DevStack stack) throws Exception {
    startStandby(stack, "xml");
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    await("stderr to be read").atMost(DEADLINE).until(() -> !err.isEmpty());
    assertThat(String.join("\n", err)).contains("CARILLON_LOG_FORMAT = 'xml'");
  }
}
