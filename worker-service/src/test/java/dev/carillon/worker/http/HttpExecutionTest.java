package dev.carillon.worker.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.carillon.api.AgentContext;
import dev.carillon.api.Checkpoint;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.RunSpec;
import dev.carillon.store.Outcome;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.MemoryRecords;
import dev.carillon.worker.run.RunRecords;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Http agents against a real HTTP server (the JDK's) in this JVM. */
@Timeout(60)
class HttpExecutionTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

  private HttpServer server;
  private final Map<String, Reply> replies = new ConcurrentHashMap<>();
  private final AtomicReference<Seen> seen = new AtomicReference<>();
  private final CountDownLatch release = new CountDownLatch(1);
  private MemoryRecords records = MemoryRecords.empty();
  private final HttpAgents agents =
      new HttpAgents(
          Duration.ofSeconds(2),
          Map.of("AGENT_TOKEN", "t0ken"),
          1024,
          4096,
          Clock.fixed(NOW, ZoneOffset.UTC));

  /** What the endpoint answers on a path: a status and a body, or blocking until released. */
  private record Reply(int status, String body, boolean block) {}

  /** What the endpoint received. */
  private static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private record Seen(Map<String, String> headers, String body) {}

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", this::handle);
    server.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
  }

  private void handle(HttpExchange ex) throws IOException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    Map<String, String> headers = new ConcurrentHashMap<>();
    ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
    seen.set(new Seen(headers, body));
    Reply r = replies.getOrDefault(ex.getRequestURI().getPath(), new Reply(404, "", false));
    if (r.block()) {
      try {
        release.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(r.status(), bytes.length == 0 ? -1 : bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    } catch (IOException e) {
      // The client went away (a cancelled request).
    }
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  private AgentExecution execution(String path, String extra) {
    String params =
        "{\"who\":\"http\",\"http\":{\"url\":\"" + url(path) + "?key=secret\"" + extra + "}}";
    return agents.execution(
        new RunSpec("http-test", "http", params, 1), new Context(params), records);
  }

  private Outcome call(String path, int status, String body) {
    replies.put(path, new Reply(status, body, false));
    return execution(path, "").execute();
  }

  @Test
  void a_2xx_with_a_json_result_is_success_and_the_request_carries_the_context_and_the_keys()
      throws Exception {
    Outcome o = execution("/ok", ",\"tokenEnv\":\"AGENT_TOKEN\"").execute();
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED); // 404: no reply set yet
    replies.put("/ok", new Reply(200, "{\"summary\":\"3 items\",\"uri\":\"s3://b/k\"}", false));
    o = execution("/ok", ",\"tokenEnv\":\"AGENT_TOKEN\"").execute();
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("3 items");
    assertThat(o.uri()).isEqualTo("s3://b/k");
    Seen s = seen.get();
    assertThat(s.headers())
        .containsEntry("idempotency-key", "http-test/2026-12-01")
        .containsEntry("carillon-attempt", "3")
        .containsEntry("carillon-deadline", "2026-12-01T10:01:00Z")
        .containsEntry("authorization", "Bearer t0ken")
        .containsEntry("content-type", "application/json")
        .containsEntry("traceparent", TRACEPARENT);
    JsonNode ctx = JSON.readTree(s.body());
    assertThat(ctx.get("traceparent").asText()).isEqualTo(TRACEPARENT);
    assertThat(ctx.get("idempotencyKey").asText()).isEqualTo("http-test/2026-12-01");
    assertThat(ctx.get("attempt").asInt()).isEqualTo(3);
    assertThat(ctx.get("params").get("who").asText()).isEqualTo("http");
  }

  @Test
  void a_2xx_with_any_other_body_makes_the_body_the_summary() {
    Outcome o = call("/text", 201, "posted 4 messages");
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("posted 4 messages");
    assertThat(call("/empty", 204, "").summary()).isEmpty();
  }

  @Test
  void a_4xx_is_non_retryable_and_names_the_endpoint_without_its_query() {
    Outcome o = call("/bad", 400, "{\"error\":\"no such channel\"}");
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(o.nonRetryable()).isTrue();
    assertThat(o.reason())
        .isEqualTo(
            "HTTP 400 from " + url("/bad") + " (non-retryable): {\"error\":\"no such channel\"}")
        .doesNotContain("secret");
  }

  @Test
  void a_5xx_a_429_and_a_408_are_retryable() {
    for (int status : new int[] {500, 503, 429, 408}) {
      Outcome o = call("/s" + status, status, "later");
      assertThat(o.status()).as("HTTP %d", status).isEqualTo(InstanceStatus.FAILED);
      assertThat(o.nonRetryable()).as("HTTP %d", status).isFalse();
      assertThat(o.reason()).startsWith("HTTP " + status + " from ");
    }
  }

  @Test
  void a_redirect_is_not_followed() {
    Outcome o = call("/moved", 302, "");
    assertThat(o.nonRetryable()).isTrue();
    assertThat(o.reason()).startsWith("HTTP 302");
  }

  @Test
  void no_response_within_the_request_timeout_is_retryable() {
    replies.put("/slow", new Reply(200, "late", true));
    Outcome o = execution("/slow", ",\"requestTimeout\":\"300ms\"").execute();
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(o.nonRetryable()).isFalse();
    assertThat(o.reason())
        .isEqualTo("no response from " + url("/slow") + " within PT0.3S; retryable");
  }

  @Test
  void a_stop_cancels_a_request_in_flight() throws Exception {
    replies.put("/hang", new Reply(200, "late", true));
    AgentExecution e = execution("/hang", "");
    CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(e::execute);
    await("the request reached the endpoint")
        .atMost(Duration.ofSeconds(10))
        .until(() -> seen.get() != null);
    e.stop();
    Outcome o = running.get(10, TimeUnit.SECONDS);
    assertThat(o.reason()).isEqualTo("stopped");
  }

  @Test
  void a_body_larger_than_the_bound_is_cut_and_not_read_as_json() {
    String big = "{\"summary\":\"" + "x".repeat(5000) + "\"}";
    Outcome o = call("/big", 200, big);
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).hasSize(1024).startsWith("{\"summary\":\"xxx");
  }

  @Test
  void an_unreachable_endpoint_is_retryable_and_a_missing_token_says_which_variable() {
    int port = server.getAddress().getPort();
    server.stop(0);
    String params = "{\"http\":{\"url\":\"http://127.0.0.1:" + port + "/gone\"}}";
    Outcome o =
        agents
            .execution(new RunSpec("http-test", "http", params, 1), new Context(params), records)
            .execute();
    assertThat(o.nonRetryable()).isFalse();
    assertThat(o.reason()).startsWith("cannot reach http://127.0.0.1:" + port + "/gone");

    String withToken =
        "{\"http\":{\"url\":\"http://127.0.0.1:" + port + "/x\",\"tokenEnv\":\"MISSING\"}}";
    Outcome missing =
        agents
            .execution(
                new RunSpec("http-test", "http", withToken, 1), new Context(withToken), records)
            .execute();
    assertThat(missing.reason()).startsWith("params.http.tokenEnv names MISSING, which is not set");
  }

  @Test
  void
      the_body_carries_what_earlier_attempts_left_and_a_response_may_return_a_checkpoint_and_effects()
          throws Exception {
    records =
        new MemoryRecords(
            Optional.of(new Checkpoint("{\"page\":7}", 2, NOW.minusSeconds(60))),
            Map.of("post", new RunRecords.EarlierEffect(true, "msg-17", 1)));

    Outcome o =
        call(
            "/resume",
            503,
            "{\"checkpoint\":{\"page\":9},\"effects\":[{\"key\":\"email\",\"result\":\"m-2\"},"
                + "{\"key\":\"post\",\"result\":\"again\"}]}");

    JsonNode resume = JSON.readTree(seen.get().body()).get("resume");
    assertThat(resume.get("lastCheckpoint").get("state").get("page").asInt()).isEqualTo(7);
    assertThat(resume.get("effects").get("post").get("result").asText()).isEqualTo("msg-17");
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(o.nonRetryable()).isFalse();
    assertThat(records.reported)
        .as("the post already done is not recorded again")
        .containsExactly("checkpoint {\"page\":9}", "done email m-2");
  }

  @Test
  void a_success_may_carry_only_a_checkpoint_and_a_bad_one_is_skipped_not_fatal() {
    Outcome o = call("/only", 200, "{\"checkpoint\":[1],\"summary\":\"done\"}");
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("done");
    assertThat(records.reported).isEmpty();
  }

  /** A fixed context: attempt 3, a one-minute deadline from NOW. */
  private static final class Context implements AgentContext {
    private final String params;

    Context(String params) {
      this.params = params;
    }

    @Override
    public String taskId() {
      return "http-test";
    }

    @Override
    public String windowKey() {
      return "2026-12-01";
    }

    @Override
    public Instant windowStart() {
      return Instant.parse("2026-12-01T00:00:00Z");
    }

    @Override
    public Instant windowEnd() {
      return Instant.parse("2026-12-02T00:00:00Z");
    }

    @Override
    public Instant scheduledAt() {
      return NOW;
    }

    @Override
    public Instant startedAt() {
      return NOW;
    }

    @Override
    public int attempt() {
      return 3;
    }

    @Override
    public int retryCount() {
      return 2;
    }

    @Override
    public Optional<String> previousFailureReason() {
      return Optional.empty();
    }

    @Override
    public Optional<String> traceparent() {
      return Optional.of(TRACEPARENT);
    }

    @Override
    public Instant deadline() {
      return NOW.plus(Duration.ofMinutes(1));
    }

    @Override
    public String paramsJson() {
      return params;
    }

    @Override
    public void heartbeat(String progress) {}

    @Override
    public boolean isCancelled() {
      return false;
    }
  }
}
