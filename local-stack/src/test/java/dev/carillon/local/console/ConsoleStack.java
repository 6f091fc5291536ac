package dev.carillon.local.console;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.retry.RetryService;
import dev.carillon.spec.Format;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A real Carillon for the console's browser tests: the trigger (serving the API and the console), a
 * worker with the example agents and the retry service, each started from a {@link Config} as in
 * production, on devstack's PostgreSQL (a fresh database), Kafka (topics of its own) and ZooKeeper,
 * with an operator's, a viewer's and an admin's token.
 */
final class ConsoleStack implements AutoCloseable {
  final String operatorToken = Tokens.mint();
  final String viewerToken = Tokens.mint();
  final String adminToken = Tokens.mint();
  final Database db;
  private final List<AutoCloseable> services = new ArrayList<>();
  private final TriggerService trigger;
  private final Path tokens;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  ConsoleStack(String tasksYaml) {
    DevStack stack = DevStack.shared();
    String dbUrl = stack.createDatabase("console_browser");
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String topic = "test.console." + unique;
    stack.createTopic(topic, 2);
    // The config topic (carillon.config), which the API reads and writes, as a deployment has it.
    TopicAdmin.ensureTopics(KafkaSettings.of(stack.kafkaBootstrap()), 1, (short) 1);
    try {
      tokens = Files.createTempFile("console-tokens", ".txt");
      Files.writeString(
          tokens,
          String.join(
              "\n",
              TokenFile.line(new Principal("olga", Role.OPERATOR), operatorToken),
              TokenFile.line(new Principal("vik", Role.VIEWER), viewerToken),
              TokenFile.line(new Principal("ada", Role.ADMIN), adminToken)),
          StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    db = Database.open(new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 2));
    Map<String, String> common = new HashMap<>();
    common.put("db.url", dbUrl);
    common.put("db.user", stack.dbUser());
    common.put("db.password", stack.dbPassword());
    common.put("kafka.bootstrap", stack.kafkaBootstrap());
    common.put("zk.connect", stack.zkConnect());
    common.put("admin.port", "0");
    // As the deploy steps leave them: the schema migrated, the topic with this many partitions.
    common.put("db.migrate", "true");
    common.put("kafka.instances-partitions", "2");
    try {
      Map<String, String> t = new HashMap<>(common);
      t.put("instance.id", "console-trigger");
      t.put("trigger.topic", topic);
      t.put("api.port", "0");
      t.put("api.bind-address", "127.0.0.1");
      t.put("api.tokens-file", tokens.toString());
      trigger = TriggerService.start(Config.of(t), Clock.systemUTC());
      services.add(trigger);
      // Applied once the trigger has migrated the schema.
      new TaskStore(db.dsl())
          .applyAll(SpecReader.read(tasksYaml, Format.YAML, "console-tasks.yaml"));

      Map<String, String> w = new HashMap<>(common);
      w.put("instance.id", "console-worker");
      w.put("worker.topic", topic);
      w.put("worker.group", "console-" + unique);
      w.put("worker.heartbeat-interval", "200ms");
      w.put("worker.task-cache-ttl", "0s");
      w.put("worker.drain-timeout", "2s");
      services.add(WorkerService.start(Config.of(w)));

      Map<String, String> r = new HashMap<>(common);
      r.put("instance.id", "console-retry");
      r.put("retry.instances-topic", topic);
      r.put("retry.scan-interval", "200ms");
      services.add(RetryService.start(Config.of(r), Clock.systemUTC()));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** The console's address, e.g. {@code http://127.0.0.1:40123/console/}. */
  String consoleUrl() {
    return "http://127.0.0.1:" + trigger.apiPort() + "/console/";
  }

  /** Calls the API as {@code token}; returns the status and body. */
  HttpResponse<String> call(String method, String path, String token) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + trigger.apiPort() + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .header("Authorization", "Bearer " + token);
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (int i = services.size() - 1; i >= 0; i--) {
      try {
        services.get(i).close();
      } catch (Exception e) {
        System.err.println("stopping " + services.get(i) + " failed: " + e);
      }
    }
    db.close();
    try {
      Files.deleteIfExists(tokens);
    } catch (IOException e) {
      // a temp file; the build directory goes with it
    }
  }
}
