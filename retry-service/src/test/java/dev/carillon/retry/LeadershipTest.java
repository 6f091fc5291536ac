package dev.carillon.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.testsupport.Tasks;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** One leader scans on its own; a standby only takes over when the leader goes. */
@Timeout(120)
class LeadershipTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void only_the_leader_scans_and_the_standby_takes_over_when_it_leaves() throws Exception {
    try (Harness h = new Harness("leadership")) {
      Map<String, String> fast = Map.of("retry.scan-interval", "100ms");
      RetryService first = h.start(fast, Clock.systemUTC());
      await("the first service to lead").atMost(WAIT).until(first::isLeader);
      RetryService second = h.start(fast, Clock.systemUTC());
      String task = h.define(Tasks.daily("led").retry(new ImmediateRetry(2))).id();

      // The leader's own loop decides and republishes a failure without any scanOnce().
      long id = h.newInstance(task, "2026-03-01", Duration.ofMinutes(5)).id();
      h.fail(h.claim(id, "w"), "boom", false);
      await("the leader to republish the stranded instance")
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(h.find(id).dispatchedAt()).isNotNull());
      assertThat(first.metrics().totals().lastScanEpochMillis()).isPositive();
      assertThat(second.isLeader()).isFalse();
      assertThat(second.metrics().totals().lastScanEpochMillis()).isZero();
      assertThat(first.metrics().totals().retried()).isEqualTo(1);

      // Health and metrics on the admin port.
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> live =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + first.adminPort() + "/health/live"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(live.statusCode()).isEqualTo(200);
      assertThat(live.body()).contains("\"leader\":true");
      HttpResponse<String> metrics =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + first.adminPort() + "/metrics"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(metrics.body())
          .containsPattern("carillon_retry_retried_total\\{task=\"[^\"]+\"} 1\\.0")
          .contains("carillon_retry_last_scan_timestamp_seconds")
          .contains("carillon_leader_epoch{service=\"retry\"}")
          .contains("carillon_retry_alerts_sent_total")
          .contains("carillon_retry_alerts_failed_total");

      first.close();
      await("the second service to take over").atMost(WAIT).until(second::isLeader);
      long id2 = h.newInstance(task, "2026-03-02", Duration.ofMinutes(5)).id();
      h.fail(h.claim(id2, "w"), "boom", false);
      await("the new leader to republish the second instance")
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(h.find(id2).dispatchedAt()).isNotNull());
      assertThat(second.metrics().totals().retried()).isEqualTo(1);
    }
  }
}
