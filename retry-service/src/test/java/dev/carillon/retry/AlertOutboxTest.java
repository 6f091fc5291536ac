package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.carillon.config.Config;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.retry.alert.AlertWebhook;
import dev.carillon.testsupport.Tasks;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DEAD alerts wait in the database until the webhook acknowledges them: a webhook that refuses
 * them, a retry service restarted meanwhile, and one delivery per DEAD instance once the webhook
 * accepts, each signed and carrying its idempotency key.
 */
@Timeout(120)
class AlertOutboxTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String SECRET = "s3cret-shared-with-the-receiver";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One call the webhook received. */
  record Call(int answered, String key, String signature, byte[] body) {}

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger answer = new AtomicInteger(503);
  private HttpServer webhook;
  private Harness h;

  @BeforeEach
  void start() throws Exception {
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/hooks/dead",
        ex -> {
          byte[] body;
          try (InputStream in = ex.getRequestBody()) {
            body = in.readAllBytes();
          }
          int status = answer.get();
          calls.add(
              new Call(
                  status,
                  ex.getRequestHeaders().getFirst(AlertWebhook.IDEMPOTENCY_HEADER),
                  ex.getRequestHeaders().getFirst(AlertWebhook.SIGNATURE_HEADER),
                  body));
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    webhook.start();
    h = new Harness("alert_outbox");
  }

  @AfterEach
  void stop() {
    h.close();
    webhook.stop(0);
  }

  @Test
  void alerts_survive_a_webhook_outage_and_a_restart_and_arrive_once_each_signed(
      @TempDir Path secrets) throws Exception {
    Path secretFile = secrets.resolve("alert_secret");
    Files.writeString(secretFile, SECRET + "\n", StandardCharsets.UTF_8);
    Map<String, String> env =
        Map.of(
            Config.envName("retry.alert-webhook"),
            "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hooks/dead",
            Config.envName("retry.alert-secret") + "_FILE",
            secretFile.toString());
    RetryService first = h.startFromEnvironment(env, Clock.systemUTC());
    String task = h.define(Tasks.daily("doomed")).id();
    List<Long> dead = new ArrayList<>();
    for (int d = 1; d <= 3; d++) {
      long id = h.newInstance(task, "2026-03-0" + d, Duration.ofMinutes(5)).id();
      h.fail(h.claim(id, "w"), "boom " + d, false);
      dead.add(id);
    }
    first.scanOnce();
    assertThat(dead).allSatisfy(id -> assertThat(h.status(id)).isEqualTo(InstanceStatus.DEAD));

    await("the refusing webhook was called").atMost(WAIT).until(() -> !calls.isEmpty());
    assertThat(first.pendingAlerts()).as("nothing acknowledged, nothing lost").isEqualTo(3);
    first.close();

    answer.set(204);
    RetryService second = h.startFromEnvironment(env, Clock.systemUTC());
    await("every alert acknowledged after the restart")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(second.pendingAlerts()).isZero());

    List<Call> accepted = calls.stream().filter(c -> c.answered() == 204).toList();
    Set<String> keys = new HashSet<>();
    for (long id : dead) {
      int attempt = h.find(id).attempt();
      List<Call> mine = accepted.stream().filter(c -> c.key().equals(id + "/" + attempt)).toList();
      assertThat(mine).as("deliveries of the alert of %d", id).hasSize(1);
      Call c = mine.get(0);
      keys.add(c.key());
      JsonNode body = JSON.readTree(c.body());
      assertThat(body.get("instanceId").asLong()).isEqualTo(id);
      assertThat(body.get("lastReason").asText()).startsWith("boom");
      assertThat(body.get("decision").asText()).contains("task is not retryable");
      assertThat(c.signature()).as("HMAC-SHA256 of the body").isEqualTo(hmac(SECRET, c.body()));
      assertThat(
              h.db
                  .dsl()
                  .select(TASK_INSTANCE.ALERTED_AT)
                  .from(TASK_INSTANCE)
                  .where(TASK_INSTANCE.ID.eq(id))
                  .fetchSingle()
                  .value1())
          .isNotNull();
    }
    assertThat(accepted).as("nothing else was accepted").hasSize(3);
    assertThat(calls)
        .filteredOn(c -> c.answered() == 503)
        .as("refused deliveries carried the same keys")
        .allSatisfy(c -> assertThat(keys).contains(c.key()));
    assertThat(second.metrics().totals().dead()).isZero();
  }

  @Test
  void the_shared_alert_webhook_gets_each_dead_once_from_the_outbox_and_never_from_memory()
      throws Exception {
    answer.set(204);
    Map<String, String> env =
        Map.of(
            Config.envName("alert.webhook"),
            "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hooks/dead",
            Config.envName("retry.alert-secret"),
            SECRET);
    RetryService s = h.startFromEnvironment(env, Clock.systemUTC());
    String task = h.define(Tasks.daily("doomed-too")).id();
    long id = h.newInstance(task, "2026-04-01", Duration.ofMinutes(5)).id();
    h.fail(h.claim(id, "w"), "boom", false);
    s.scanOnce();
    assertThat(h.status(id)).isEqualTo(InstanceStatus.DEAD);

    await("the alert acknowledged")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(s.pendingAlerts()).isZero());
    int attempt = h.find(id).attempt();
    assertThat(calls).as("one delivery, from the outbox (keyed and signed)").hasSize(1);
    Call c = calls.get(0);
    assertThat(c.key()).isEqualTo(id + "/" + attempt);
    assertThat(c.signature()).isEqualTo(hmac(SECRET, c.body()));
    assertThat(JSON.readTree(c.body()).get("event").asText()).isEqualTo("instance.dead");
    assertThat(h.scrape(s))
        .contains("carillon_alerts_total{kind=\"dead\"} 1.0")
        .contains("carillon_retry_alerts_sent_total 1.0")
        .as("the in-memory sink sent no DEAD")
        .contains("carillon_alerts_webhook_total{kind=\"dead\",result=\"sent\"} 0.0")
        .contains("carillon_alerts_webhook_total{kind=\"dead\",result=\"failed\"} 0.0");
  }

  /** The signature as a receiver computes it, independently of the sender's code. */
  private static String hmac(String secret, byte[] body) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    StringBuilder hex = new StringBuilder("sha256=");
    for (byte b : mac.doFinal(body)) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString();
  }
}
