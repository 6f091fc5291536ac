package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stack killed with -9 leaves its PostgreSQL running (pg_ctl runs it in a session of its own); a
 * stack started next on the same data directory must stop that server and come up with the data of
 * all three servers.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CrashRestartTest {
  private static final Duration CHILD_START = Duration.ofMinutes(2);

  @TempDir Path tmp;

  @Test
  void a_stack_on_the_data_of_one_killed_with_minus_9_stops_the_orphan_and_keeps_the_data()
      throws Exception {
    Path dataDir = tmp.resolve("data");
    String topic = "crash-restart-" + UUID.randomUUID();
    Process child = startChild(dataDir, tmp.resolve("child.log"));
    long orphan;
    Map<String, String> endpoints;
    try {
      endpoints = endpoints(child, tmp.resolve("child.log"));
      String jdbc = endpoints.get("carillon.db.url");
      try (Connection c =
              DriverManager.getConnection(jdbc, DevStack.DB_USER, DevStack.DB_PASSWORD);
          Statement s = c.createStatement()) {
        s.execute("create table crash_restart (v text)");
        s.execute("insert into crash_restart values ('written before kill -9')");
      }
      try (KafkaProducer<String, String> producer =
          producer(endpoints.get("carillon.kafka.bootstrap"))) {
        producer.send(new ProducerRecord<>(topic, "k", "sent before kill -9")).get();
      }
      ZooKeeper zk = connect(endpoints.get("carillon.zookeeper.connect"));
      try {
        zk.create(
            "/crash-restart",
            "created before kill -9".getBytes(StandardCharsets.UTF_8),
            ZooDefs.Ids.OPEN_ACL_UNSAFE,
            CreateMode.PERSISTENT);
      } finally {
        zk.close();
      }
      orphan = postmasterPid(dataDir);
      assertThatThrownBy(() -> DevStack.start(DevStackOptions.defaults().withDataDir(dataDir)))
          .as("a second stack while the first one lives")
          .hasMessageContaining("in use by process " + child.pid());

      child.destroyForcibly(); // SIGKILL: no shutdown hook runs
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child JVM died").isTrue();
    } finally {
      child.destroyForcibly();
    }
    assertThat(ProcessHandle.of(orphan).filter(ProcessHandle::isAlive))
        .as("the killed stack's PostgreSQL (pid %d) still runs", orphan)
        .isPresent();

    try (DevStack again = DevStack.start(DevStackOptions.defaults().withDataDir(dataDir))) {
      assertThat(ProcessHandle.of(orphan).filter(ProcessHandle::isAlive))
          .as("the orphaned PostgreSQL was stopped")
          .isEmpty();
      assertThat(postmasterPid(dataDir)).isNotEqualTo(orphan);
      assertThat(again.startupTime()).isLessThan(Duration.ofSeconds(30));
      assertThat(List.of(again.jdbcUrl(), again.kafkaBootstrap(), again.zkConnect()))
          .as("the same addresses as the killed stack")
          .containsExactly(
              endpoints.get("carillon.db.url"),
              endpoints.get("carillon.kafka.bootstrap"),
              endpoints.get("carillon.zookeeper.connect"));

      try (Connection c =
              DriverManager.getConnection(again.jdbcUrl(), again.dbUser(), again.dbPassword());
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select v from crash_restart")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("written before kill -9");
      }
      assertThat(again.createDatabase("crash_restart")).contains("/crash_restart_");

      try (KafkaProducer<String, String> producer = producer(again.kafkaBootstrap())) {
        producer.send(new ProducerRecord<>(topic, "k", "sent after the restart")).get();
      }
      assertThat(consumeTwo(again.kafkaBootstrap(), topic))
          .containsExactly("sent before kill -9", "sent after the restart");

      ZooKeeper zk = connect(again.zkConnect());
      try {
        assertThat(new String(zk.getData("/crash-restart", false, null), StandardCharsets.UTF_8))
            .isEqualTo("created before kill -9");
      } finally {
        zk.close();
      }
    } finally {
      // If the new stack did not start, do not leave the orphan running.
      OrphanPostmaster.stopIfRunning(dataDir.resolve("pg"), Duration.ofSeconds(20));
    }
  }

  private static Process startChild(Path dataDir, Path log) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xmx512m");
    cmd.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    String epg = System.getProperty("ot.epg.working-dir");
    if (epg != null) {
      cmd.add("-Dot.epg.working-dir=" + epg);
    }
    cmd.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            DevStackMain.class.getName(),
            "--data-dir",
            dataDir.toString()));
    return new ProcessBuilder(cmd).redirectError(log.toFile()).start();
  }

  /** The {@code carillon.*=} lines DevStackMain prints once its servers are up. */
  private static Map<String, String> endpoints(Process child, Path log) throws Exception {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line.trim());
                }
              } catch (IOException e) {
                lines.add("stdout failed: " + e);
              }
            },
            "crash-restart-child-stdout");
    reader.setDaemon(true);
    reader.start();
    Map<String, String> values = new HashMap<>();
    long deadline = System.nanoTime() + CHILD_START.toNanos();
    while (!values.containsKey("carillon.zookeeper.connect")) {
      String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new AssertionError(
            "the child DevStack did not print its endpoints within "
                + CHILD_START
                + "; its stderr: "
                + Files.readString(log));
      }
      int eq = line.indexOf('=');
      if (line.startsWith("carillon.") && eq > 0) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }

  private static long postmasterPid(Path dataDir) throws IOException {
    return Long.parseLong(
        Files.readAllLines(dataDir.resolve("pg").resolve(OrphanPostmaster.PID_FILE))
            .get(0)
            .strip());
  }

  private static ZooKeeper connect(String connect) throws Exception {
    ZooKeeper zk = new ZooKeeper(connect, 10_000, e -> {});
    await("a ZooKeeper session with " + connect)
        .atMost(Duration.ofSeconds(15))
        .until(() -> zk.getState().isConnected());
    return zk;
  }

  private static KafkaProducer<String, String> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000,
            ProducerConfig.LINGER_MS_CONFIG, 0,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000),
        new StringSerializer(),
        new StringSerializer());
  }

  private static List<String> consumeTwo(String bootstrap, String topic) {
    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG,
                "crash-restart-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await("both records of " + topic + " polled")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                  seen.add(r.value());
                }
                return seen.size() >= 2;
              });
    }
    return seen;
  }
}
