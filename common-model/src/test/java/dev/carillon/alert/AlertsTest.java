package dev.carillon.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.testing.SettableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AlertsTest {
  private static Alert late(String task) {
    return new Alert(AlertKind.LATE_FIRE, task, Map.of("taskId", task));
  }

  /** A sink that keeps what it is sent. */
  private static final class Kept implements AlertSink {
    final List<Alert> sent = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<Boolean> send(Alert alert) {
      sent.add(alert);
      return CompletableFuture.completedFuture(true);
    }

    @Override
    public void close() {}
  }

  @Test
  void a_repeat_of_kind_and_task_within_repeat_after_is_suppressed_and_counted() {
    SettableClock clock = new SettableClock(Instant.parse("2026-01-01T00:00:00Z"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Kept sink = new Kept();
    try (Alerts alerts = new Alerts(sink, Duration.ofMinutes(15), clock, registry)) {
      assertThat(alerts.raise(late("a"), "late")).isTrue();
      assertThat(alerts.raise(late("a"), "late")).isFalse();
      assertThat(alerts.raise(late("b"), "late")).isTrue();
      clock.advance(Duration.ofMinutes(15));
      assertThat(alerts.raise(late("a"), "late")).isTrue();
      alerts.raiseEach(new Alert(AlertKind.DEAD, "a", Map.of()));
      alerts.raiseEach(new Alert(AlertKind.DEAD, "a", Map.of()));
    }
    assertThat(sink.sent).hasSize(5);
    assertThat(registry.get("carillon.alerts").tag("kind", "late_fire").counter().count())
        .isEqualTo(3);
    assertThat(registry.get("carillon.alerts").tag("kind", "dead").counter().count()).isEqualTo(2);
    assertThat(
            registry.get("carillon.alerts.suppressed").tag("kind", "late_fire").counter().count())
        .isEqualTo(1);
  }

  @Test
  void the_body_is_the_event_then_the_fields_in_order() {
    Alert a =
        new Alert(
            AlertKind.WINDOWS_SKIPPED, "t", new java.util.LinkedHashMap<>(Map.of("taskId", "t")));
    assertThat(a.json()).isEqualTo("{\"event\":\"windows.skipped\",\"taskId\":\"t\"}");
  }

  @Test
  void settings_read_global_and_per_task_bounds_and_name_a_bad_value() {
    AlertSettings s =
        AlertSettings.from(
            Config.of(
                Map.of(
                    "alert.late-fire-after",
                    "30s",
                    "alert.late-fire-after-tasks",
                    "daily-digest=2m, sync=5s",
                    "retry.alert-webhook",
                    "http://hooks.example/secret")),
            Optional.of("retry.alert-webhook"));
    assertThat(s.lateFireAfter("daily-digest")).isEqualTo(Duration.ofMinutes(2));
    assertThat(s.lateFireAfter("sync")).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.lateFireAfter("other")).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.webhook()).hasValue(URI.create("http://hooks.example/secret"));
    assertThat(s.describe()).doesNotContain("secret");
    assertThatThrownBy(
            () ->
                AlertSettings.from(
                    Config.of(Map.of("alert.late-fire-after-tasks", "sync=soon")),
                    Optional.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("alert.late-fire-after-tasks")
        .hasMessageContaining("sync")
        .hasMessageContaining("soon");
    assertThatThrownBy(
            () ->
                AlertSettings.from(
                    Config.of(Map.of("alert.webhook", "ftp://x/token")), Optional.empty()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("alert.webhook")
        .hasMessageNotContaining("token");
  }

  @Test
  void the_webhook_tries_again_after_a_failure_and_reports_the_delivery() throws IOException {
    AtomicInteger calls = new AtomicInteger();
    List<String> bodies = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/hook",
        ex -> {
          bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          int code = calls.incrementAndGet() == 1 ? 503 : 204;
          ex.sendResponseHeaders(code, -1);
          ex.close();
        });
    server.start();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (WebhookSink sink =
        new WebhookSink(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook"),
            3,
            Duration.ofMillis(10),
            "test-webhook",
            registry)) {
      CompletableFuture<Boolean> done = sink.send(late("a"));
      await("the webhook's second call to be acknowledged")
          .atMost(Duration.ofSeconds(20))
          .until(done::isDone);
      assertThat(done.getNow(false)).isTrue();
      assertThat(calls.get()).isEqualTo(2);
      assertThat(bodies.get(1)).isEqualTo("{\"event\":\"fire.late\",\"taskId\":\"a\"}");
      assertThat(
              registry
                  .get("carillon.alerts.webhook")
                  .tags("kind", "late_fire", "result", "sent")
                  .counter()
                  .count())
          .isEqualTo(1);
      assertThat(sink.pending()).isZero();
    } finally {
      server.stop(0);
    }
  }

  @Test
  void keys_lists_what_from_reads() {
    Config c = Config.of(Map.of());
    AlertSettings.from(c, Optional.empty());
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(AlertSettings.KEYS);
  }

  @Test
  void without_a_channel_an_alert_is_not_delivered() throws Exception {
    assertThat(AlertSink.none().send(late("a")).get(1, TimeUnit.SECONDS)).isFalse();
  }
}
