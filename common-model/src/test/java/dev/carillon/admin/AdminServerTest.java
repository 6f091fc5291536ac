package dev.carillon.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.http.HttpServerSettings;
import dev.carillon.testsupport.TricklingClients;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AdminServerTest {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  private HttpResponse<String> send(String method, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void health_follows_the_report_and_metrics_are_prometheus_text() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.counter("carillon.test.things").increment(3);
    AtomicBoolean ready = new AtomicBoolean(false);
    try (AdminServer server =
        AdminServer.start(
            "test",
            0,
            registry,
            () -> new HealthReport(true, ready.get(), Map.of("leader", false)))) {
      assertThat(send("GET", server.port(), "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = send("GET", server.port(), "/health/ready");
      assertThat(notReady.statusCode()).isEqualTo(503);
      assertThat(notReady.body()).contains("\"status\":\"DOWN\"").contains("\"leader\":false");
      ready.set(true);
      assertThat(send("GET", server.port(), "/health/ready").statusCode()).isEqualTo(200);
      HttpResponse<String> metrics = send("GET", server.port(), "/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.body()).contains("carillon_test_things_total 3.0");
      HttpResponse<String> head = send("HEAD", server.port(), "/health/live");
      assertThat(head.statusCode()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      assertThat(send("GET", server.port(), "/nothing").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void every_endpoint_is_read_only() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (AdminServer server =
        AdminServer.start("test", 0, registry, () -> new HealthReport(true, true, Map.of()))) {
      for (String path : new String[] {"/health/live", "/health/ready", "/metrics", "/"}) {
        HttpResponse<String> post = send("POST", server.port(), path);
        assertThat(post.statusCode()).as(path).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).as(path).hasValue("GET, HEAD");
        assertThat(send("DELETE", server.port(), path).statusCode()).as(path).isEqualTo(405);
      }
    }
  }

  @Test
  void headers_beyond_the_limit_are_refused_as_a_problem() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (AdminServer server =
        AdminServer.start("test", 0, registry, () -> new HealthReport(true, true, Map.of()))) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + server.port() + "/health/live"))
                  .header("X-Big", "b".repeat(HttpServerSettings.DEFAULT_MAX_HEADER_BYTES + 10))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(431);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      assertThat(r.body()).contains("\"field\":\"headers\"").contains("\"status\":431");
    }
  }

  /**
   * Issue 17's measurement: on the JDK server one client sending a header byte every 5 s stopped
   * four concurrent health checks for 40 s. Here eight clients trickle a byte a second, and every
   * health check during several header deadlines is answered within a second, while the tricklers
   * are cut off at the deadline and come back.
   */
  @Test
  void trickling_clients_neither_delay_health_nor_keep_their_connections() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    HttpServerSettings settings =
        HttpServerSettings.defaults(0, HttpServerSettings.ADMIN_MAX_BODY_BYTES)
            .withHeaderTimeout(Duration.ofSeconds(2));
    try (AdminServer server =
            AdminServer.start(
                "test", settings, registry, () -> new HealthReport(true, true, Map.of()));
        TricklingClients slow =
            TricklingClients.start("127.0.0.1", server.port(), 8, Duration.ofSeconds(1))) {
      HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      await("health answered within 1 s each while 8 clients trickle headers")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> healthWithinOneSecond(fresh, server.port()));
      assertThat(slow.closedByServer())
          .as("connections the server cut off at the header deadline")
          .isGreaterThanOrEqualTo(8);
      assertThat(registry.counter("carillon.http.slow.closed", "server", "test-admin").count())
          .isGreaterThanOrEqualTo(8);
    }
  }

  private static boolean healthWithinOneSecond(HttpClient client, int port) throws Exception {
    long start = System.nanoTime();
    HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                .timeout(Duration.ofSeconds(1))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(took).as("health call time").isLessThan(Duration.ofSeconds(1));
    return true;
  }
}
