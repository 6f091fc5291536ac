package dev.carillon.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AdminServerTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> send(String method, int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
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
    }
  }

  @Test
  void every_endpoint_is_read_only() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (AdminServer server =
        AdminServer.start("test", 0, registry, () -> new HealthReport(true, true, Map.of()))) {
      for (String path : new String[] {"/health/live", "/health/ready", "/metrics", "/"}) {
        assertThat(send("POST", server.port(), path).statusCode()).as(path).isEqualTo(405);
        assertThat(send("DELETE", server.port(), path).statusCode()).as(path).isEqualTo(405);
      }
    }
  }
}
