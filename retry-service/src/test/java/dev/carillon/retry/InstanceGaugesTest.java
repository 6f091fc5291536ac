package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.InstanceStatsStore.InstanceStats;
import dev.carillon.testsupport.Tasks;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The instance gauges the retry leader refreshes, and the backlog alert they raise. */
class InstanceGaugesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Harness h;
  private static RetryService service;
  private static HttpServer webhook;
  private static final List<String> alerts = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/hook",
        ex -> {
          try (InputStream in = ex.getRequestBody()) {
            alerts.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          }
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    webhook.start();
    h = new Harness("retry_gauges");
    service =
        h.start(
            Map.of(
                "alert.webhook",
                "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook",
                "alert.backlog-after",
                "30s",
                "alert.repeat-after",
                "1h"),
            Clock.systemUTC());
  }

  @AfterAll
  static void stop() {
    h.close();
    webhook.stop(0);
  }

  @Test
  void the_gauges_count_by_status_and_an_old_pending_instance_raises_one_backlog_alert()
      throws Exception {
    String task = h.define(Tasks.daily("gauged")).id();
    Instance old = h.newInstance(task, "2026-03-01", Duration.ofMinutes(5));
    h.newInstance(task, "2026-03-02", Duration.ofMinutes(5));
    Instance running = h.claim(h.newInstance(task, "2026-03-03", Duration.ofMinutes(5)).id(), "w");
    assertThat(running.status()).isEqualTo(InstanceStatus.RUNNING);
    // PENDING and never published for ten minutes: a stuck dispatch.
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.UPDATED_AT, Instant.now().minus(Duration.ofMinutes(10)))
        .where(TASK_INSTANCE.ID.eq(old.id()))
        .execute();

    InstanceStats stats = service.refreshStats();
    assertThat(stats.counts().get(InstanceStatus.PENDING)).isEqualTo(2);
    assertThat(stats.counts().get(InstanceStatus.RUNNING)).isEqualTo(1);
    String scrape = h.scrape(service);
    assertThat(scrape)
        .contains("carillon_instances{status=\"pending\"} 2.0")
        .contains("carillon_instances{status=\"running\"} 1.0")
        .contains("carillon_instances{status=\"dead\"} 0.0")
        .containsPattern("carillon_instances_oldest_age_seconds\\{state=\"pending\"} 60\\d\\.")
        .contains("carillon_instances_oldest_age_seconds{state=\"overdue_retry\"} 0.0");

    await("the backlog alerts").atMost(Duration.ofSeconds(20)).until(() -> alerts.size() >= 2);
    service.refreshStats(); // the same backlog again: not sent again within alert.repeat-after
    List<JsonNode> bodies = alerts.stream().map(InstanceGaugesTest::json).toList();
    assertThat(bodies).extracting(b -> b.get("event").asText()).containsOnly("backlog.growing");
    assertThat(bodies)
        .extracting(b -> b.get("state").asText())
        .containsExactlyInAnyOrder("pending", "undispatched");
    assertThat(bodies.get(0).get("oldestAgeMs").asLong()).isGreaterThanOrEqualTo(600_000);
    assertThat(bodies.get(0).get("boundMs").asLong()).isEqualTo(30_000);
    assertThat(scrape).contains("carillon_alerts_total{kind=\"backlog\"}");
    // The leader's own refresh (every 15 s) may have seen the backlog too: suppressed, not sent.
    String after = h.scrape(service);
    assertThat(after)
        .contains("carillon_alerts_webhook_total{kind=\"backlog\",result=\"sent\"} 2.0")
        .containsPattern("carillon_alerts_suppressed_total\\{kind=\"backlog\"} [2-9]\\.0");
    assertThat(alerts).hasSize(2);
  }

  private static JsonNode json(String s) {
    try {
      return JSON.readTree(s);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + s, e);
    }
  }
}
