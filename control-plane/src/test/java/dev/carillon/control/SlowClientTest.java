package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.admin.AdminServer;
import dev.carillon.admin.HealthReport;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.http.HttpServerSettings;
import dev.carillon.testsupport.TricklingClients;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 17's slow-client requirement on both servers of a trigger process: while clients trickle
 * request heads one byte a second into the admin port and the API port, every {@code /health/live}
 * and every API call is answered within a second, and the tricklers lose their connections at the
 * header deadline.
 */
@ExtendWith(DevStackExtension.class)
class SlowClientTest {
  @Test
  void health_and_api_calls_stay_under_a_second_while_clients_trickle_headers() throws Exception {
    try (ApiFixture api = ApiFixture.start("api_slow", Map.of("api.header-timeout", "2s"));
        AdminServer admin =
            AdminServer.start(
                "trigger",
                HttpServerSettings.defaults(0, HttpServerSettings.ADMIN_MAX_BODY_BYTES)
                    .withHeaderTimeout(Duration.ofSeconds(2)),
                api.registry,
                () -> new HealthReport(true, true, Map.of()));
        TricklingClients onAdmin =
            TricklingClients.start("127.0.0.1", admin.port(), 6, Duration.ofSeconds(1));
        TricklingClients onApi =
            TricklingClients.start("127.0.0.1", api.server.port(), 6, Duration.ofSeconds(1))) {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      await("health and API calls each answered within 1 s while 12 clients trickle headers")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                within(client, "http://127.0.0.1:" + admin.port() + "/health/live", null);
                within(
                    client, "http://127.0.0.1:" + api.server.port() + "/api/v1/whoami", api.viewer);
                return true;
              });
      assertThat(onAdmin.closedByServer()).as("admin tricklers cut off").isGreaterThanOrEqualTo(6);
      assertThat(onApi.closedByServer()).as("API tricklers cut off").isGreaterThanOrEqualTo(6);
    }
  }

  private static void within(HttpClient client, String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(1));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    long start = System.nanoTime();
    HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    assertThat(took).as("%s answered in", url).isLessThan(Duration.ofSeconds(1));
  }
}
