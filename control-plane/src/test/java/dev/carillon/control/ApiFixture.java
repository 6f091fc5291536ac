package dev.carillon.control;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.client.model.WireJson;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.ConfigTopic;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.OverviewQueries;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.TestDatabase;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The API as a test class meets it: a fresh database on devstack's PostgreSQL, topics of its own on
 * devstack's Kafka, a tokens file with a viewer, an operator and an admin, and the server on a free
 * port of 127.0.0.1, called over real HTTP. The clock is settable: bulk pacing advances it instead
 * of sleeping, and the rate limiter counts on it.
 */
final class ApiFixture implements AutoCloseable {
  static final Instant START = Instant.parse("2026-03-29T12:00:00Z");
  static final ObjectMapper JSON = WireJson.client();

  final Database db;
  final SettableClock clock = new SettableClock(START);
  final TaskStore tasks;
  final OperatorStore operator;
  final WindowStore windows;
  final LeaseStore leases;
  final ScanRecords scans;
  final String viewer = Tokens.mint();
  final String operatorToken = Tokens.mint();
  final String admin = Tokens.mint();
  final String instancesTopic = "api-instances-" + UUID.randomUUID().toString().substring(0, 8);
  final String configTopic = "api-config-" + UUID.randomUUID().toString().substring(0, 8);
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final ApiServer server;
  private final InstancePublisher publisher;
  private final Path tokens;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private ApiFixture(String prefix, Map<String, String> settings) throws IOException {
    DevStack stack = DevStack.shared();
    stack.createTopic(instancesTopic, 1);
    stack.createTopic(configTopic, 1);
    db = TestDatabase.fresh(prefix);
    tasks = new TaskStore(db.dsl());
    operator = new OperatorStore(db.dsl());
    windows = new WindowStore(db.dsl());
    leases = new LeaseStore(db.dsl());
    scans = new ScanRecords(db.dsl());
    tokens = Files.createTempFile("api-tokens", ".txt");
    Files.writeString(
        tokens,
        String.join(
            "\n",
            "# test tokens",
            TokenFile.line(new Principal("vera", Role.VIEWER), viewer),
            TokenFile.line(new Principal("otto", Role.OPERATOR), operatorToken),
            TokenFile.line(new Principal("ada", Role.ADMIN), admin)),
        StandardCharsets.UTF_8);
    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    publisher = new InstancePublisher(kafka, instancesTopic, Duration.ofSeconds(5));
    ControlPlane plane =
        new ControlPlane(
            clock,
            tasks,
            operator,
            windows,
            new PresenceStore(db.dsl()),
            new dev.carillon.store.RunEvidenceStore(db.dsl()),
            new ConfigTopic(kafka, configTopic, Duration.ofSeconds(10)),
            new KafkaDispatch(publisher, windows, clock),
            50,
            clock::advance);
    Map<String, String> c = new HashMap<>();
    c.put("api.port", "0");
    c.put("api.bind-address", "127.0.0.1");
    c.put("api.tokens-file", tokens.toString());
    c.put("api.rate.burst", "100000");
    c.putAll(settings);
    server =
        ApiServer.start(
            ApiSettings.from(Config.of(c)),
            plane,
            new Insight(
                new OverviewQueries(db.dsl()), scans, Insight.Leadership.none("api-test-replica")),
            registry);
  }

  static ApiFixture start(String prefix) {
    return start(prefix, Map.of());
  }

  static ApiFixture start(String prefix, Map<String, String> settings) {
    try {
      return new ApiFixture(prefix, settings);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One HTTP response, its body parsed when it is JSON. */
  record Response(int status, HttpHeaders headers, String body) {
    JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }

    String contentType() {
      return headers.firstValue("Content-Type").orElse("");
    }

    <T> T as(Class<T> type) {
      try {
        return JSON.readValue(body, type);
      } catch (IOException e) {
        throw new AssertionError("not a " + type.getSimpleName() + ": " + body, e);
      }
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  Response call(String method, String path, String token) {
    return call(method, path, token, null, Map.of());
  }

  Response call(String method, String path, String token, String body) {
    return call(method, path, token, body, Map.of());
  }

  Response call(
      String method, String path, String token, String body, Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (body != null && !headers.containsKey("Content-Type")) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Response(r.statusCode(), r.headers(), r.body());
    } catch (IOException e) {
      throw new IllegalStateException(method + " " + path + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Applies {@code defs} as the store does (the API's apply waits for the spec reader). */
  void apply(TaskDefinition... defs) {
    tasks.apply(List.of(defs), "test");
  }

  /** A PENDING instance of {@code task} for one window, as the trigger would create it. */
  Instance pending(String task, String window) {
    return windows
        .create(
            List.of(dev.carillon.testsupport.Tasks.pendingKey(task, window, Duration.ofMinutes(5))),
            "trigger:test")
        .get(0);
  }

  /**
   * Every row of every table the API writes, as text in a fixed order: equal snapshots before and
   * after a request mean it changed nothing.
   */
  Map<String, String> snapshot() {
    Map<String, String> out = new LinkedHashMap<>();
    for (String table :
        List.of(
            "task_definition",
            "task_instance",
            "instance_event",
            "task_event",
            "trigger_cursor",
            "task_definition_change",
            "retry_scan")) {
      out.put(table, db.dsl().fetch("select * from " + table + " order by 1").formatCSV());
    }
    return out;
  }

  @Override
  public void close() throws IOException {
    server.close();
    publisher.close();
    db.close();
    Files.deleteIfExists(tokens);
  }
}
