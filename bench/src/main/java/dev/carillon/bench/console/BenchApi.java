package dev.carillon.bench.console;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import dev.carillon.config.Config;
import dev.carillon.control.ApiServer;
import dev.carillon.control.ApiSettings;
import dev.carillon.control.ControlPlane;
import dev.carillon.control.Insight;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.ConfigTopic;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.kafka.Topics;
import dev.carillon.store.Database;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.OverviewQueries;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.RunEvidenceStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control plane's HTTP API on a dev stack's database, for benches that time its answers: a
 * loopback port, a viewer token, rate limits out of the way. {@link #get} answers the body of a 200
 * and stops the bench on anything else.
 */
public final class BenchApi implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** The overview's warm-up at the API's start: the hours it counted and how long after start. */
  public record WarmUp(int hours, double millis) {}

  private final ApiServer server;
  private final Path tokens;
  private final String base;
  private final String token;
  private final CompletableFuture<WarmUp> warmUp;

  private BenchApi(ApiServer server, Path tokens, String token, long startNanos) {
    this.server = server;
    this.tokens = tokens;
    this.base = "http://127.0.0.1:" + server.port();
    this.token = token;
    this.warmUp =
        server
            .overviewWarmUp()
            .thenApply(hours -> new WarmUp(hours, (System.nanoTime() - startNanos) / 1e6));
  }

  /**
   * Waits (at most ten minutes) for the API's overview warm-up to end; any failure stops the bench.
   */
  public WarmUp awaitOverviewWarmUp() {
    try {
      return warmUp.get(10, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the overview's warm-up did not end: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Creates the topics the control plane reads, mints a viewer token and starts the API. */
  public static BenchApi start(DevStack stack, Database db) throws IOException {
    KafkaSettings kafka = KafkaSettings.of(stack.kafkaBootstrap());
    TopicAdmin.ensureTopics(kafka, 1, (short) 1);
    String token = Tokens.mint();
    Path tokens = Files.createTempFile("bench-tokens", ".txt");
    Files.writeString(
        tokens, TokenFile.line(new Principal("bench", Role.VIEWER), token), StandardCharsets.UTF_8);
    ControlPlane plane =
        new ControlPlane(
            Clock.systemUTC(),
            new TaskStore(db.dsl()),
            new OperatorStore(db.dsl()),
            new WindowStore(db.dsl()),
            new PresenceStore(db.dsl()),
            new RunEvidenceStore(db.dsl()),
            new ConfigTopic(kafka, Topics.CONFIG, Duration.ofSeconds(10)),
            created -> List.of(),
            50,
            ControlPlane.Sleeper.THREAD);
    Insight insight =
        new Insight(
            new OverviewQueries(db.dsl()),
            new ScanRecords(db.dsl()),
            Insight.Leadership.none("bench"));
    Map<String, String> c = new LinkedHashMap<>();
    c.put("api.port", "0");
    c.put("api.bind-address", "127.0.0.1");
    c.put("api.tokens-file", tokens.toString());
    c.put("api.rate.per-second", "100000");
    c.put("api.rate.burst", "100000");
    long startNanos = System.nanoTime();
    try {
      return new BenchApi(
          ApiServer.start(
              ApiSettings.from(Config.of(c)), plane, insight, new SimpleMeterRegistry()),
          tokens,
          token,
          startNanos);
    } catch (RuntimeException e) {
      Files.deleteIfExists(tokens);
      throw e;
    }
  }

  /** GETs {@code /api/v1} + {@code path} as the bench's viewer; any answer but 200 throws. */
  public String get(String path) {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(base + "/api/v1" + path))
            .timeout(Duration.ofSeconds(30))
            .header("Authorization", "Bearer " + token)
            .GET()
            .build();
    try {
      HttpResponse<String> r = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
      }
      return r.body();
    } catch (IOException e) {
      throw new IllegalStateException("GET " + path + " failed: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      server.close();
    } finally {
      Files.deleteIfExists(tokens);
    }
  }
}
