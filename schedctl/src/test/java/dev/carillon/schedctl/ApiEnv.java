package dev.carillon.schedctl;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.config.Config;
import dev.carillon.control.ApiServer;
import dev.carillon.control.ApiSettings;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.Insight;
import dev.carillon.control.KafkaDispatch;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.ConfigTopic;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.OverviewQueries;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * A fresh database on devstack with the real API server in front of it, and the environment that
 * points schedctl at it: {@code CARILLON_API_URL} and an admin's {@code CARILLON_API_TOKEN} (and,
 * for checks, the database settings).
 */
final class ApiEnv implements AutoCloseable {
  final Cli.Env db;
  final ApiServer server;
  final String token = Tokens.mint();
  final String viewerToken = Tokens.mint();
  final String configTopic = "cli-config-" + UUID.randomUUID().toString().substring(0, 8);
  private final InstancePublisher publisher;
  private final Path tokens;

  private ApiEnv(String prefix) throws IOException {
    DevStack stack = DevStack.shared();
    db = Cli.Env.fresh(prefix);
    String instances = "cli-instances-" + UUID.randomUUID().toString().substring(0, 8);
    stack.createTopic(instances, 1);
    stack.createTopic(configTopic, 1);
    tokens = Files.createTempFile("cli-tokens", ".txt");
    Files.writeString(
        tokens,
        TokenFile.line(new Principal("cli-admin", Role.ADMIN), token)
            + "\n"
            + TokenFile.line(new Principal("cli-viewer", Role.VIEWER), viewerToken)
            + "\n",
        StandardCharsets.UTF_8);
    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    publisher = new InstancePublisher(kafka, instances, Duration.ofSeconds(5));
    WindowStore windows = new WindowStore(db.db().dsl());
    ControlPlane plane =
        new ControlPlane(
            Clock.systemUTC(),
            new TaskStore(db.db().dsl()),
            new OperatorStore(db.db().dsl()),
            windows,
            new PresenceStore(db.db().dsl()),
            new dev.carillon.store.RunEvidenceStore(db.db().dsl()),
            new ConfigTopic(kafka, configTopic, Duration.ofSeconds(10)),
            new KafkaDispatch(publisher, windows, Clock.systemUTC()),
            100,
            ControlPlane.Sleeper.THREAD);
    Map<String, String> c = new HashMap<>();
    c.put("api.port", "0");
    c.put("api.bind-address", "127.0.0.1");
    c.put("api.tokens-file", tokens.toString());
    c.put("api.rate.burst", "100000");
    server =
        ApiServer.start(
            ApiSettings.from(Config.of(c)),
            plane,
            new Insight(
                new OverviewQueries(db.db().dsl()),
                new ScanRecords(db.db().dsl()),
                Insight.Leadership.none("schedctl-test")),
            new SimpleMeterRegistry());
  }

  static ApiEnv start(String prefix) {
    try {
      return new ApiEnv(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + server.port();
  }

  /** The environment of a schedctl pointed at the API with the admin's token. */
  Map<String, String> vars() {
    Map<String, String> m = new HashMap<>(db.vars());
    m.put("CARILLON_API_URL", url());
    m.put("CARILLON_API_TOKEN", token);
    return m;
  }

  /** The API environment alone: no database settings, so a command can only use the API. */
  Map<String, String> apiOnly(String token) {
    return Map.of("CARILLON_API_URL", url(), "CARILLON_API_TOKEN", token, "USER", "ops-tester");
  }

  @Override
  public void close() throws IOException {
    server.close();
    publisher.close();
    db.close();
    Files.deleteIfExists(tokens);
  }
}
