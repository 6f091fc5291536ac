package dev.carillon.faults;

import static org.awaitility.Awaitility.await;

import dev.carillon.schedctl.Schedctl;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Bad input driven end to end against the running system; each case states its expected outcome and
 * checks both the clear error and that nothing half-written remains.
 */
final class BadInputs {
  /** One case's outcome. */
  record Outcome(String input, String expected, boolean ok, String observed) {}

  private static final Duration WAIT = Duration.ofSeconds(60);

  private final Path dir;
  private final Map<String, String> env;
  private final Supplier<Connection> db;
  private final Services services;
  private final String kafka;
  private final List<Outcome> outcomes = new ArrayList<>();

  BadInputs(
      Path dir, Map<String, String> env, Supplier<Connection> db, Services services, String kafka) {
    this.dir = dir;
    this.env = env;
    this.db = db;
    this.services = services;
    this.kafka = kafka;
  }

  List<Outcome> runAll() throws Exception {
    String ok =
        "  - id: %s\n    handler: sleep\n    schedule: { cron: \"%s\", zone: %s, window: EVERY_FIRE }\n    timeout: %s\n";
    refused(
        "invalid cron", "bad-cron", ok.formatted("bad-cron", "0 0 25 * * ?", "UTC", "10s"), "cron");
    refused(
        "unknown zone",
        "bad-zone",
        ok.formatted("bad-zone", "0 * * * * ?", "Mars/Olympus", "10s"),
        "zone");
    refused("bad task id", "Bad_ID!", ok.formatted("Bad_ID!", "0 * * * * ?", "UTC", "10s"), "id");
    refused(
        "negative duration",
        "bad-neg",
        ok.formatted("bad-neg", "0 * * * * ?", "UTC", "-5s"),
        "timeout");
    refused(
        "absurd duration",
        "bad-absurd",
        ok.formatted("bad-absurd", "0 * * * * ?", "UTC", "100000d"),
        "timeout");
    refused(
        "unknown retry policy",
        "bad-policy",
        ok.formatted("bad-policy", "0 * * * * ?", "UTC", "10s")
            + "    retry: { policy: SOMETIMES }\n",
        "retry");
    refused(
        "10 MB params blob",
        "bad-huge",
        ok.formatted("bad-huge", "0 * * * * ?", "UTC", "10s")
            + "    params: { blob: \""
            + "x".repeat(10 * 1024 * 1024)
            + "\" }\n",
        "bytes");

    malformedRecords();
    garbageConfig();

    plugin(
        "plugin throws Error",
        "bad-error",
        "{ throwError: \"boom\", duration: 10ms }",
        "5s",
        "DEAD",
        "Error");
    plugin(
        "plugin ignores interrupts",
        "bad-hang",
        "{ ignoreInterrupts: true, duration: 6s }",
        "2s",
        "DEAD",
        "timeout");
    plugin(
        "plugin returns a 10 MB result",
        "bad-result",
        "{ resultBytes: 10485760, duration: 10ms }",
        "10s",
        "SUCCESS",
        "truncated");
    sqlEdited();
    return outcomes;
  }

  private int schedctl(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        new Schedctl()
            .run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
    lastErr = err.toString(StandardCharsets.UTF_8);
    return code;
  }

  private String lastErr = "";

  private void refused(String input, String id, String taskYaml, String mustMention)
      throws Exception {
    Path file = dir.resolve("bad-" + outcomes.size() + ".yaml");
    Files.writeString(file, "tasks:\n" + taskYaml);
    int code = schedctl("apply", "-f", file.toString());
    int rows = count("SELECT count(*) FROM task_definition WHERE task_id = ?", id);
    boolean clear = lastErr.toLowerCase().contains(mustMention.toLowerCase());
    outcomes.add(
        new Outcome(
            input,
            "schedctl apply exits 2 naming '" + mustMention + "', no row",
            code == 2 && rows == 0 && clear,
            "exit " + code + ", rows " + rows + ", error: " + firstLine(lastErr)));
  }

  private void malformedRecords() {
    double before =
        services.counter(Services.Role.WORKER, "carillon_worker_records_malformed_total");
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (int partition = 0; partition < 4; partition++) {
        producer.send(
            new ProducerRecord<>(
                "carillon.instances",
                partition,
                "x",
                "not json {".getBytes(StandardCharsets.UTF_8)));
        producer.send(
            new ProducerRecord<>(
                "carillon.instances",
                partition,
                "x",
                "{\"v\":99,\"id\":1,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-01-01T00:00:00Z\"}"
                    .getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
    boolean counted =
        waitFor(
            () ->
                services.counter(Services.Role.WORKER, "carillon_worker_records_malformed_total")
                    >= before + 8);
    double after =
        services.counter(Services.Role.WORKER, "carillon_worker_records_malformed_total");
    outcomes.add(
        new Outcome(
            "non-JSON records on the instances topic (4)",
            "counted as malformed, skipped",
            counted,
            "malformed counter " + before + " -> " + after));
    outcomes.add(
        new Outcome(
            "wrong-version records on the instances topic (4)",
            "counted as malformed, skipped",
            counted,
            "(same counter)"));
  }

  /** A valid rate-limit override, set before the garbage so that there is a value to keep. */
  static final String KEPT_RATE_LIMIT =
      "{\"perSecond\":200,\"burst\":321,\"perTaskPerSecond\":20,\"maxPerScan\":432}";

  private static final String APPLIED = "carillon_retry_config_applied_total";
  private static final String REJECTED = "carillon_retry_config_rejected_total";

  /**
   * Garbage on the config topic. Every retry service (leader and standby) reads the whole topic, so
   * each must reject each of the three bad records: all six rejections are required, one of them
   * counted too many (or an applied count that moved) fails. First a valid rate limit is set and
   * must be applied by each service; after the garbage each must say, in its rejection of the bad
   * rate limit, that this value stays in force.
   */
  private void garbageConfig() {
    List<Services.Service> retry = services.of(Services.Role.RETRY);
    Map<String, Double> applied0 = counters(retry, APPLIED);
    send("ratelimit/global", KEPT_RATE_LIMIT);
    boolean set =
        waitFor(
            () ->
                retry.stream()
                    .allMatch(s -> services.counter(s, APPLIED) >= applied0.get(s.name()) + 1));
    Map<String, Double> applied1 = counters(retry, APPLIED);
    Map<String, Double> rejected0 = counters(retry, REJECTED);
    send("retry/default", "\u0000garbage{{");
    send("no-such-kind/x", "{}");
    send(
        "ratelimit/global",
        "{\"perSecond\":500000,\"burst\":1,\"perTaskPerSecond\":1,\"maxPerScan\":1}");
    int bad = 3;
    boolean rejected =
        waitFor(
            () ->
                retry.stream()
                    .allMatch(s -> services.counter(s, REJECTED) >= rejected0.get(s.name()) + bad));
    List<String> observed = new ArrayList<>();
    boolean exact = true;
    boolean kept = true;
    for (Services.Service s : retry) {
      double r = services.counter(s, REJECTED) - rejected0.get(s.name());
      double a = services.counter(s, APPLIED) - applied1.get(s.name());
      boolean says = keptInLog(s);
      exact &= r == bad && a == 0;
      kept &= says;
      observed.add(
          s.name()
              + ": rejected +"
              + (int) r
              + ", applied +"
              + (int) a
              + ", kept value logged "
              + says);
    }
    outcomes.add(
        new Outcome(
            "garbage on the config topic (3 records, 2 retry services)",
            "each service rejects all 3 (6 rejections, none applied) and keeps the rate limit set"
                + " before",
            set && rejected && exact && kept && retry.size() == 2,
            "valid value applied by all " + set + "; " + String.join("; ", observed)));
  }

  private Map<String, Double> counters(List<Services.Service> of, String metric) {
    Map<String, Double> out = new java.util.HashMap<>();
    for (Services.Service s : of) {
      out.put(s.name(), services.counter(s, metric));
    }
    return out;
  }

  private void send(String key, String value) {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka);
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      producer.send(
          new ProducerRecord<>("carillon.config", key, value.getBytes(StandardCharsets.UTF_8)));
      producer.flush();
    }
  }

  /**
   * Whether the service logged, rejecting the bad rate limit, that the one set before stays in
   * force: the rejection line names the value of the service's own snapshot at that moment.
   */
  private boolean keptInLog(Services.Service s) {
    try {
      return Files.readString(s.log())
          .lines()
          .anyMatch(
              l ->
                  l.contains("Rejected config record ratelimit/global")
                      && l.contains("the previous value stays in force")
                      && l.contains("\"burst\":321")
                      && l.contains("\"maxPerScan\":432"));
    } catch (IOException e) {
      return false;
    }
  }

  private void plugin(
      String input, String id, String params, String timeout, String status, String reasonMentions)
      throws Exception {
    Path file = dir.resolve(id + ".yaml");
    Files.writeString(
        file,
        "tasks:\n  - id: "
            + id
            + "\n    handler: sleep\n    schedule: { cron: \"0/3 * * * * ?\", zone: UTC, window: EVERY_FIRE }\n    timeout: "
            + timeout
            + "\n    params: "
            + params
            + "\n");
    int code = schedctl("apply", "-f", file.toString());
    String sql =
        "SELECT status || ' ' || coalesce(fail_reason, '') || ' truncated=' || result_truncated"
            + " FROM task_instance WHERE task_id = ? AND status IN ('SUCCESS', 'DEAD') ORDER BY id LIMIT 1";
    boolean done = waitFor(() -> !text(sql, id).isEmpty());
    String seen = text(sql, id);
    schedctl("pause", id);
    outcomes.add(
        new Outcome(
            input,
            status + " with a reason mentioning '" + reasonMentions + "'",
            code == 0
                && done
                && seen.startsWith(status)
                && seen.toLowerCase().contains(reasonMentions.toLowerCase()),
            "apply exit " + code + ", first instance: " + abbreviate(seen)));
  }

  private void sqlEdited() throws Exception {
    Path file = dir.resolve("bad-sql.yaml");
    Files.writeString(
        file,
        "tasks:\n  - id: bad-sql\n    handler: sleep\n    schedule: { cron: \"0/2 * * * * ?\", zone: UTC, window: EVERY_FIRE }\n    timeout: 5s\n    params: { duration: 10ms }\n");
    int code = schedctl("apply", "-f", file.toString());
    try (Connection c = db.get();
        Statement st = c.createStatement()) {
      st.executeUpdate(
          "UPDATE task_definition SET cron = 'every tuesday-ish', version = version + 1 WHERE task_id = 'bad-sql'");
    }
    int before = count("SELECT count(*) FROM task_instance WHERE task_id LIKE 'f-%'", null);
    boolean logged =
        waitFor(
            () ->
                services.of(Services.Role.TRIGGER).stream()
                    .anyMatch(
                        s -> {
                          try {
                            return Files.readString(s.log())
                                .lines()
                                .anyMatch(l -> l.contains("ERROR") && l.contains("bad-sql"));
                          } catch (IOException e) {
                            return false;
                          }
                        }));
    boolean othersFire =
        waitFor(
            () ->
                count("SELECT count(*) FROM task_instance WHERE task_id LIKE 'f-%'", null)
                    > before + 20);
    outcomes.add(
        new Outcome(
            "task edited in SQL into an invalid state",
            "trigger logs ERROR naming it, other tasks keep firing",
            code == 0 && logged && othersFire,
            "apply exit "
                + code
                + ", ERROR logged "
                + logged
                + ", others kept firing "
                + othersFire));
    schedctl("pause", "bad-sql");
  }

  private boolean waitFor(java.util.concurrent.Callable<Boolean> condition) {
    try {
      await("a bad-input check's condition")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(500))
          .until(condition);
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    }
  }

  private int count(String sql, String arg) {
    try (Connection c = db.get();
        PreparedStatement st = c.prepareStatement(sql)) {
      if (arg != null) {
        st.setString(1, arg);
      }
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private String text(String sql, String arg) {
    try (Connection c = db.get();
        PreparedStatement st = c.prepareStatement(sql)) {
      st.setString(1, arg);
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() ? rs.getString(1) : "";
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String firstLine(String s) {
    String line = s.lines().findFirst().orElse("");
    return abbreviate(line);
  }

  private static String abbreviate(String s) {
    return s.length() > 140 ? s.substring(0, 140) + "..." : s;
  }
}
