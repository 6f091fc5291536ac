package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.testsupport.Tasks;
import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input, one row per case: each is answered with the expected 4xx as {@code
 * application/problem+json} whose problems name the field and the value, and every table the API
 * writes is the same after the request as before it.
 */
@ExtendWith(DevStackExtension.class)
class BadInputTest {
  private static ApiFixture api;
  private static long running;
  private static long succeeded;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_bad_input");
    api.apply(Tasks.daily("bad-input").build());
    Instance claimed =
        api.leases.claim(List.of(api.pending("bad-input", "2026-03-01").id()), "w1").get(0);
    running = claimed.id();
    Instance other =
        api.leases.claim(List.of(api.pending("bad-input", "2026-03-02").id()), "w1").get(0);
    assertThat(
            api.leases.complete(new Lease(other.id(), 1), Outcome.success("ok", false, null), "w1"))
        .isTrue();
    succeeded = other.id();
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  /**
   * @param token "viewer", "operator" or "admin"
   * @param value what the problem's value must contain ({@code null}: the value must be absent)
   */
  record Case(
      String name,
      String method,
      String path,
      String token,
      String body,
      Map<String, String> headers,
      int status,
      String field,
      String value) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Case c(
      String name,
      String method,
      String path,
      String body,
      int status,
      String field,
      String value) {
    return new Case(name, method, path, "operator", body, Map.of(), status, field, value);
  }

  static Stream<Arguments> cases() {
    String huge = "{\"reason\":\"" + "x".repeat(2 * 1024 * 1024) + "\"}";
    return Stream.of(
            c(
                "malformed JSON",
                "POST",
                "/api/v1/instances/{running}/cancel",
                "{\"reason\":",
                400,
                "body",
                "{\"reason\":"),
            c(
                "an unknown field",
                "POST",
                "/api/v1/instances:rerun-dead",
                "{\"task\":\"bad-input\",\"force\":true}",
                400,
                "force",
                "force"),
            c(
                "text where a number belongs",
                "POST",
                "/api/v1/instances:rerun-dead",
                "{\"limit\":\"ten\"}",
                400,
                "limit",
                "ten"),
            c(
                "a bad cron expression",
                "GET",
                "/api/v1/next?cron=0+0+8+*+*&zone=UTC",
                null,
                400,
                "cron",
                "0 0 8 * *"),
            c(
                "a bad zone",
                "GET",
                "/api/v1/next?cron=0+0+8+*+*+%3F&zone=Mars/Olympus",
                null,
                400,
                "zone",
                "Mars/Olympus"),
            c("a bad instance id", "GET", "/api/v1/instances/12ab", null, 400, "id", "12ab"),
            c(
                "a bad task id",
                "POST",
                "/api/v1/tasks/Bad_Task!/pause",
                null,
                400,
                "id",
                "Bad_Task!"),
            c(
                "a huge body",
                "POST",
                "/api/v1/instances/{running}/cancel",
                huge,
                413,
                "body",
                "bytes"),
            c(
                "a negative duration",
                "POST",
                "/api/v1/retry-plan",
                "{\"recovery\":\"PT-1H\",\"initial\":\"5m\"}",
                400,
                "recovery",
                "PT-1H"),
            c(
                "an unknown instance",
                "POST",
                "/api/v1/instances/99999999/cancel",
                null,
                404,
                "id",
                "99999999"),
            c(
                "an unknown task",
                "POST",
                "/api/v1/tasks/no-such-task/runs",
                null,
                404,
                "id",
                "no-such-task"),
            c(
                "a re-run of a RUNNING instance",
                "POST",
                "/api/v1/instances/{running}/rerun",
                null,
                409,
                "status",
                "RUNNING"),
            c(
                "a cancel of a finished instance",
                "POST",
                "/api/v1/instances/{succeeded}/cancel",
                null,
                409,
                "status",
                "SUCCESS"),
            c(
                "a bad cursor",
                "GET",
                "/api/v1/instances?cursor=not-a-cursor",
                null,
                400,
                "cursor",
                "not-a-cursor"),
            c(
                "a bad status filter",
                "GET",
                "/api/v1/instances?status=SLEEPING",
                null,
                400,
                "status",
                "SLEEPING"),
            c(
                "a limit out of range",
                "GET",
                "/api/v1/instances?limit=501",
                null,
                400,
                "limit",
                "501"),
            c(
                "an unknown query parameter",
                "GET",
                "/api/v1/tasks?queue=gpu",
                null,
                400,
                "queue",
                "gpu"),
            c(
                "from after to",
                "GET",
                "/api/v1/instances?from=2026-03-02&to=2026-03-01",
                null,
                400,
                "to",
                "2026-03-01"),
            c(
                "a backfill into the future",
                "POST",
                "/api/v1/tasks/bad-input/backfill",
                "{\"from\":\"2026-03-01\",\"to\":\"2026-04-30\",\"dryRun\":false}",
                400,
                "to",
                "2026-04-30"),
            c(
                "a backfill time that is no time",
                "POST",
                "/api/v1/tasks/bad-input/backfill",
                "{\"from\":\"yesterday\",\"to\":\"2026-03-02\"}",
                400,
                "from",
                "yesterday"),
            c(
                "run-now params that are not an object",
                "POST",
                "/api/v1/tasks/bad-input/runs",
                "{\"params\":[1,2]}",
                400,
                "params",
                "[1,2]"),
            c(
                "run-now params that change the command an exec agent runs",
                "POST",
                "/api/v1/tasks/bad-input/runs",
                "{\"params\":{\"exec\":{\"command\":[\"rm\"]}}}",
                400,
                "params.exec",
                "rm"),
            c(
                "run-now params over the size limit",
                "POST",
                "/api/v1/tasks/bad-input/runs",
                "{\"params\":{\"text\":\"" + "x".repeat(70_000) + "\"}}",
                400,
                "params",
                "bytes"),
            c(
                "a delete with an unknown live mode",
                "DELETE",
                "/api/v1/tasks/bad-input?live=maybe",
                null,
                400,
                "live",
                "maybe"),
            c(
                "a delete with live instances",
                "DELETE",
                "/api/v1/tasks/bad-input",
                null,
                409,
                "live",
                "refuse"),
            c(
                "a body where none is taken",
                "POST",
                "/api/v1/tasks/bad-input/pause",
                "{\"paused\":true}",
                400,
                "body",
                "bytes"),
            new Case(
                "a bad Idempotency-Key",
                "POST",
                "/api/v1/tasks/bad-input/runs",
                "operator",
                null,
                Map.of("Idempotency-Key", "has\ttab"),
                400,
                "Idempotency-Key",
                "has"),
            new Case(
                "a text body",
                "POST",
                "/api/v1/instances:rerun-dead",
                "operator",
                "task=bad-input",
                Map.of("Content-Type", "text/plain"),
                415,
                "Content-Type",
                "text/plain"),
            new Case(
                "a bad config value",
                "PUT",
                "/api/v1/config/retry/bad-input",
                "admin",
                "{\"policy\":\"SOMETIMES\"}",
                Map.of(),
                400,
                "retry.policy",
                "SOMETIMES"),
            new Case(
                "a bad config key",
                "PUT",
                "/api/v1/config/retry/Bad!Id",
                "admin",
                "{\"policy\":\"NONE\"}",
                Map.of(),
                400,
                "key",
                "retry/Bad!Id"),
            new Case(
                "a negative config duration",
                "PUT",
                "/api/v1/config/retry/bad-input",
                "admin",
                "{\"policy\":\"DELAYED\",\"delays\":[\"-5m\"]}",
                Map.of(),
                400,
                "retry.delays[0]",
                "-5m"),
            c(
                "an apply with a bad cron",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"new-one\",\"handler\":\"noop\",\"schedule\":{\"cron\":\"0 0 8 * *\",\"zone\":\"UTC\",\"window\":\"DAILY\"}}]}",
                400,
                "schedule.cron",
                "0 0 8 * *"),
            c(
                "an apply with a bad zone among good tasks",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"good-one\",\"handler\":\"noop\",\"schedule\":{\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\",\"window\":\"DAILY\"}},{\"id\":\"new-two\",\"handler\":\"noop\",\"schedule\":{\"cron\":\"0 0 8 * * ?\",\"zone\":\"Mars/Olympus\",\"window\":\"DAILY\"}}]}",
                400,
                "schedule.zone",
                "Mars/Olympus"),
            c(
                "an apply with a misspelt field",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"new-three\",\"handler\":\"noop\",\"timout\":\"5m\",\"schedule\":{\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\",\"window\":\"DAILY\"}}]}",
                400,
                "timout",
                "5m"),
            c(
                "an apply with a negative timeout",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"new-four\",\"handler\":\"noop\",\"timeout\":\"-5m\",\"schedule\":{\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\",\"window\":\"DAILY\"}}]}",
                400,
                "timeout",
                "-5m"),
            c(
                "an apply after an unknown task",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"new-five\",\"handler\":\"noop\",\"after\":[\"ghost\"],\"schedule\":{\"window\":\"DAILY\"}}]}",
                400,
                "after[0]",
                "ghost"),
            c(
                "an apply of a one-shot too late to run (beyond its catch-up window)",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"late-once\",\"handler\":\"noop\",\"at\":\"2026-03-29T10:59:59Z\"}]}",
                400,
                "at",
                "2026-03-29T10:59:59Z"),
            c(
                "an apply of a one-shot without an offset",
                "POST",
                "/api/v1/tasks:apply",
                "{\"tasks\":[{\"id\":\"local-once\",\"handler\":\"noop\",\"at\":\"2026-04-01T09:00:00\"}]}",
                400,
                "at",
                "2026-04-01T09:00:00"),
            c(
                "a put whose id is not the path's",
                "PUT",
                "/api/v1/tasks/bad-input",
                "{\"id\":\"other-id\",\"handler\":\"noop\",\"schedule\":{\"cron\":\"0 0 8 * * ?\",\"zone\":\"UTC\",\"window\":\"DAILY\"}}",
                400,
                "id",
                "other-id"),
            c("an unknown path", "GET", "/api/v1/widgets", null, 404, "path", "/api/v1/widgets"),
            c(
                "a method the path does not take",
                "PATCH",
                "/api/v1/tasks/bad-input",
                "{}",
                405,
                "method",
                "PATCH"))
        .map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void each_is_refused_with_a_problem_naming_field_and_value_and_changes_nothing(Case k) {
    Map<String, String> before = api.snapshot();
    String token =
        switch (k.token()) {
          case "admin" -> api.admin;
          case "viewer" -> api.viewer;
          default -> api.operatorToken;
        };
    String path =
        k.path()
            .replace("{running}", Long.toString(running))
            .replace("{succeeded}", Long.toString(succeeded));
    Map<String, String> headers = new HashMap<>(k.headers());
    Response r = api.call(k.method(), path, token, k.body(), headers);

    assertThat(r.status())
        .as("%s", r.body().length() > 500 ? r.body().substring(0, 500) : r.body())
        .isEqualTo(k.status());
    assertThat(r.contentType()).isEqualTo("application/problem+json");
    JsonNode problem = r.json();
    assertThat(problem.get("status").asInt()).isEqualTo(k.status());
    assertThat(problem.get("detail").asText()).isNotBlank();
    assertThat(problem.get("problems"))
        .as("problems of %s", r.body())
        .anySatisfy(
            p -> {
              assertThat(p.get("field").asText()).isEqualTo(k.field());
              assertThat(p.get("value").asText()).contains(k.value());
              assertThat(p.get("message").asText()).isNotBlank();
            });
    assertThat(api.snapshot()).as("no row changed").isEqualTo(before);
  }

  /** A body without a length (chunked) is cut off at the limit too, while it is read. */
  @Test
  void a_huge_chunked_body_is_refused_while_read_and_changes_nothing() throws Exception {
    Map<String, String> before = api.snapshot();
    byte[] huge =
        ("{\"reason\":\"" + "y".repeat(2 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(
                            "http://127.0.0.1:"
                                + api.server.port()
                                + "/api/v1/instances/"
                                + running
                                + "/cancel"))
                    .header("Authorization", "Bearer " + api.operatorToken)
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofInputStream(
                            () -> new ByteArrayInputStream(huge)))
                    .timeout(Duration.ofSeconds(30))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(413);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(r.body()).contains("\"field\":\"body\"").contains("bytes");
    assertThat(api.snapshot()).isEqualTo(before);
  }

  /**
   * A refused body that is sent whole is read and dropped before the answer, so its client sees the
   * 413 (not a reset: closing a socket with unread bytes in it resets the connection) and the
   * connection carries the next request.
   */
  @Test
  void a_refused_body_is_read_so_the_answer_arrives_and_the_connection_stays_open()
      throws Exception {
    Map<String, String> before = api.snapshot();
    byte[] body =
        ("{\"reason\":\"" + "z".repeat(2 * 1024 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);
    try (Socket socket = new Socket("127.0.0.1", api.server.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      out.write(
          head("POST", "/api/v1/instances/" + running + "/cancel", api.operatorToken, body.length));
      out.write(body);
      out.flush();
      RawReply refused = RawReply.read(in);
      assertThat(refused.status()).as(refused.body()).isEqualTo(413);
      assertThat(refused.headers()).doesNotContainKey("connection");
      assertThat(refused.body()).contains("\"field\":\"body\"");

      out.write(head("GET", "/api/v1/instances/" + running, api.operatorToken, 0));
      out.flush();
      RawReply next = RawReply.read(in);
      assertThat(next.status()).as(next.body()).isEqualTo(200);
      assertThat(next.body()).contains("RUNNING");
    }
    assertThat(api.snapshot()).isEqualTo(before);
  }

  /**
   * A body declared far beyond the limit is not read: the 413 comes from its length alone, before
   * the client sends a byte of it, and says that the connection closes.
   */
  @Test
  void a_body_declared_far_beyond_the_limit_is_refused_unread_and_the_connection_closes()
      throws Exception {
    Map<String, String> before = api.snapshot();
    try (Socket socket = new Socket("127.0.0.1", api.server.port())) {
      socket.setSoTimeout(30_000);
      socket
          .getOutputStream()
          .write(
              head(
                  "POST", "/api/v1/instances/" + running + "/cancel", api.operatorToken, 1L << 30));
      RawReply refused = RawReply.read(new BufferedInputStream(socket.getInputStream()));
      assertThat(refused.status()).as(refused.body()).isEqualTo(413);
      assertThat(refused.headers()).containsEntry("connection", "close");
    }
    assertThat(api.snapshot()).isEqualTo(before);
  }

  /** An anonymous caller's body is not read either: the 401 closes the connection. */
  @Test
  void an_anonymous_body_is_not_read() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", api.server.port())) {
      socket.setSoTimeout(30_000);
      socket
          .getOutputStream()
          .write(head("POST", "/api/v1/instances/" + running + "/cancel", "not-a-token", 4096));
      RawReply refused = RawReply.read(new BufferedInputStream(socket.getInputStream()));
      assertThat(refused.status()).isEqualTo(401);
      assertThat(refused.headers()).containsEntry("connection", "close");
    }
  }

  private static byte[] head(String method, String path, String token, long length) {
    return (method
            + " "
            + path
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + token
            + (length > 0 ? "\r\nContent-Type: application/json\r\nContent-Length: " + length : "")
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /** One HTTP/1.1 reply read off a socket, its header names in lower case. */
  private record RawReply(int status, Map<String, String> headers, String body) {
    static RawReply read(InputStream in) throws IOException {
      String statusLine = line(in);
      Map<String, String> headers = new HashMap<>();
      for (String l = line(in); !l.isEmpty(); l = line(in)) {
        int colon = l.indexOf(':');
        headers.put(
            l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      return new RawReply(Integer.parseInt(statusLine.split(" ")[1]), headers, body);
    }

    private static String line(InputStream in) throws IOException {
      StringBuilder b = new StringBuilder();
      for (int c = in.read(); c != '\n'; c = in.read()) {
        if (c < 0) {
          throw new EOFException("the connection closed in a reply's head after: " + b);
        }
        if (c != '\r') {
          b.append((char) c);
        }
      }
      return b.toString();
    }
  }
}
