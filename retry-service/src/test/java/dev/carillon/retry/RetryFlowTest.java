package dev.carillon.retry;

import static dev.carillon.model.instance.InstanceStatus.DEAD;
import static dev.carillon.model.instance.InstanceStatus.FAILED;
import static dev.carillon.model.instance.InstanceStatus.PENDING;
import static dev.carillon.model.instance.InstanceStatus.RETRY_WAIT;
import static dev.carillon.model.instance.InstanceStatus.RUNNING;
import static dev.carillon.model.instance.InstanceStatus.SUCCESS;
import static dev.carillon.model.instance.InstanceStatus.TIMEOUT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.retry.ExponentialRetry;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.retry.WindowRetry;
import dev.carillon.model.schedule.Window;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry life of single instances, with a worker simulated by the store's claim/complete. */
@Timeout(120)
class RetryFlowTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration FIVE_MIN = Duration.ofMinutes(5);
  private static Harness h;
  private static RetryService service;
  private static Harness.TopicReader topic;
  private static HttpServer webhook;
  private static final List<String> alerts = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/hooks/secret-token",
        ex -> {
          try (InputStream in = ex.getRequestBody()) {
            alerts.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          }
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    webhook.start();
    h = new Harness("retry_flow");
    service =
        h.start(
            Map.of(
                "retry.alert-webhook",
                "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hooks/secret-token"),
            new SettableClock(Instant.parse("2026-03-29T08:00:00Z")));
    topic = h.readInstances();
  }

  @AfterAll
  static void stop() {
    h.close();
    webhook.stop(0);
  }

  /** Runs passes until the instance reaches {@code status} (real time must pass for due-ness). */
  private static void scanUntil(long id, InstanceStatus status) {
    await("instance " + id + " to reach " + status)
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () -> {
              service.scanOnce();
              assertThat(h.status(id)).isEqualTo(status);
            });
  }

  @Test
  void exponential_1s_x2_fails_twice_then_succeeds_on_the_third_attempt_spaced_by_the_policy() {
    String task =
        h.define(
                Tasks.daily("exp")
                    .retry(
                        new ExponentialRetry(
                            Duration.ofSeconds(1), 2.0, Duration.ofHours(1), 0.0, 3)))
            .id();
    long id = h.newInstance(task, "2026-03-01", FIVE_MIN).id();

    Instance first = h.claim(id, "worker-a");
    assertThat(h.fail(first, "boom 1", false)).isTrue();
    Instant failed1 = h.find(id).updatedAt();
    service.scanOnce();
    Instance waiting1 = h.find(id);
    // RETRY_WAIT, or already PENDING if this machine took over a second to get here.
    assertThat(waiting1.status()).isIn(RETRY_WAIT, PENDING);
    assertThat(waiting1.nextAttemptAt()).isEqualTo(failed1.plusSeconds(1));
    assertThat(waiting1.policyVersion()).isEqualTo(1L);

    scanUntil(id, PENDING);
    Instance second = h.claim(id, "worker-b");
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.retryCount()).isEqualTo(1);
    assertThat(h.fail(second, "boom 2", false)).isTrue();
    Instant failed2 = h.find(id).updatedAt();
    service.scanOnce();
    assertThat(h.find(id).nextAttemptAt()).isEqualTo(failed2.plusSeconds(2));

    scanUntil(id, PENDING);
    Instance third = h.claim(id, "worker-c");
    assertThat(third.attempt()).isEqualTo(3);
    assertThat(h.succeed(third)).isTrue();

    Instance done = h.find(id);
    assertThat(done.status()).isEqualTo(SUCCESS);
    assertThat(done.retryCount()).isEqualTo(2);
    List<InstanceEvent> claims = h.transitionsTo(id, RUNNING);
    List<InstanceEvent> failures = h.transitionsTo(id, FAILED);
    List<InstanceEvent> waits = h.transitionsTo(id, RETRY_WAIT);
    List<InstanceEvent> promotions =
        h.transitionsTo(id, PENDING).stream().filter(e -> e.from() == RETRY_WAIT).toList();
    assertThat(claims).hasSize(3);
    assertThat(failures).hasSize(2);
    assertThat(waits).hasSize(2);
    assertThat(promotions).hasSize(2);
    assertThat(h.transitionsTo(id, SUCCESS)).hasSize(1);
    // Spaced at least by the policy: 1 s after the first failure, 2 s after the second.
    assertThat(promotions.get(0).at()).isAfterOrEqualTo(failures.get(0).at().plusSeconds(1));
    assertThat(claims.get(1).at()).isAfterOrEqualTo(failures.get(0).at().plusSeconds(1));
    assertThat(promotions.get(1).at()).isAfterOrEqualTo(failures.get(1).at().plusSeconds(2));
    assertThat(claims.get(2).at()).isAfterOrEqualTo(failures.get(1).at().plusSeconds(2));
    assertThat(waits.get(0).reason()).contains("retry 1 of 3").contains("task definition v1");
    // Each retry was republished for the workers.
    await("the second publication of the instance")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(topic.count(id)).isEqualTo(2));
    assertThat(h.find(id).dispatchedAt()).isNotNull();
  }

  @Test
  void a_task_without_a_policy_is_dead_after_one_failure() {
    String task = h.define(Tasks.daily("no-policy")).id();
    long id = h.newInstance(task, "2026-03-01", FIVE_MIN).id();
    h.fail(h.claim(id, "w"), "IllegalStateException: nope", false);

    ScanReport r = service.scanOnce();

    Instance dead = h.find(id);
    assertThat(dead.status()).isEqualTo(DEAD);
    assertThat(r.dead()).isEqualTo(1);
    assertThat(dead.failReason())
        .contains("task is not retryable")
        .contains("last failure: IllegalStateException: nope");
    assertThat(dead.finishedAt()).isNotNull();
  }

  @Test
  void a_non_retryable_failure_is_dead_at_once_even_with_retries_left() {
    String task = h.define(Tasks.daily("non-retryable").retry(new ImmediateRetry(3))).id();
    long id = h.newInstance(task, "2026-03-01", FIVE_MIN).id();
    h.fail(h.claim(id, "w"), "NonRetryableException: bad input", true);

    service.scanOnce();

    assertThat(h.status(id)).isEqualTo(DEAD);
    assertThat(h.transitionsTo(id, RETRY_WAIT)).isEmpty();
    assertThat(h.find(id).failReason()).contains("failure is non-retryable");
  }

  @Test
  void retries_used_up_is_dead_and_the_webhook_hears_exactly_once() {
    String task = h.define(Tasks.daily("used-up").retry(new ImmediateRetry(1))).id();
    long id = h.newInstance(task, "2026-03-01", FIVE_MIN).id();
    h.fail(h.claim(id, "w1"), "boom 1", false);
    service.scanOnce(); // FAILED → RETRY_WAIT → (due at once) PENDING
    assertThat(h.status(id)).isEqualTo(PENDING);
    h.fail(h.claim(id, "w2"), "boom 2", false);

    service.scanOnce();
    service.scanOnce();

    assertThat(h.status(id)).isEqualTo(DEAD);
    assertThat(h.find(id).failReason()).contains("retries used up (1 of 1)");
    await("the dead-letter alert for the instance")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(alerts).anyMatch(a -> a.contains("\"instanceId\":" + id + ",")));
    service.scanOnce();
    await("the alert queue to drain")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(service.pendingAlerts()).isZero());
    List<String> mine =
        alerts.stream().filter(a -> a.contains("\"instanceId\":" + id + ",")).toList();
    assertThat(mine).hasSize(1);
    assertThat(mine.get(0))
        .contains("\"taskId\":\"used-up\"")
        .contains("\"attempts\":2")
        .contains("\"lastReason\":\"boom 2\"")
        .contains("retries used up");
  }

  @Test
  void window_policy_is_dead_once_the_window_has_closed_and_retries_while_it_is_open() {
    String task =
        h.define(
                Tasks.daily("window")
                    .retry(new WindowRetry(Duration.ofMinutes(1), Duration.ZERO, 3)))
            .id();
    long closed = h.newInstance(task, "2020-01-01", FIVE_MIN).id();
    // A window that opened an hour ago and stays open for days: due, so it can be claimed.
    Instant opened = Instant.now().minus(Duration.ofHours(1));
    long open =
        h.windows
            .create(
                List.of(
                    NewInstance.pending(
                        task,
                        new Window("open", opened, opened.plus(Duration.ofDays(3))),
                        opened,
                        Origin.SCHEDULE,
                        FIVE_MIN,
                        3)),
                "test")
            .get(0)
            .id();
    h.fail(h.claim(closed, "w"), "boom", false);
    h.fail(h.claim(open, "w"), "boom", false);

    service.scanOnce();

    assertThat(h.status(closed)).isEqualTo(DEAD);
    assertThat(h.find(closed).failReason()).contains("retry window closed at 2020-01-02T00:00:00Z");
    assertThat(h.status(open)).isEqualTo(RETRY_WAIT);
  }

  @Test
  void a_worker_that_vanishes_times_out_and_the_retry_succeeds_on_another_worker() {
    String task = h.define(Tasks.daily("vanish").retry(new ImmediateRetry(2))).id();
    long id = h.newInstance(task, "2026-03-01", Duration.ofSeconds(1)).id();
    Instance zombie = h.claim(id, "worker-gone");

    // No heartbeat, no result: after the 1 s lease (database time) the scan times it out,
    // decides a retry and republishes it, all in one pass.
    await("the expired lease to end PENDING again")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .untilAsserted(
            () -> {
              service.scanOnce();
              assertThat(h.status(id)).isEqualTo(PENDING);
            });
    assertThat(h.transitionsTo(id, TIMEOUT)).hasSize(1);
    assertThat(h.transitionsTo(id, RETRY_WAIT)).hasSize(1);
    await("the instance to be republished once")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(topic.count(id)).isEqualTo(1));

    Instance rescued = h.claim(id, "worker-b");
    assertThat(h.succeed(rescued)).isTrue();
    // The zombie's late result is fenced off by the attempt number.
    assertThat(
            h.leases.complete(
                new Lease(id, zombie.attempt()), Outcome.failure("late", false), "worker-gone"))
        .isFalse();
    Instance done = h.find(id);
    assertThat(done.status()).isEqualTo(SUCCESS);
    assertThat(done.workerId()).isEqualTo("worker-b");
    assertThat(done.attempt()).isEqualTo(2);
  }

  @Test
  void a_pending_instance_never_published_is_republished_once_it_is_old_enough() {
    String task = h.define(Tasks.daily("stranded")).id();
    long fresh = h.newInstance(task, "2026-03-01", FIVE_MIN).id();
    long old = h.newInstance(task, "2026-03-02", FIVE_MIN).id();
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.CREATED_AT, Instant.parse("2020-01-01T00:00:00Z"))
        .where(TASK_INSTANCE.ID.eq(old))
        .execute();

    service.scanOnce();
    service.scanOnce();

    await("the stranded instance to be republished once")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(topic.count(old)).isEqualTo(1));
    assertThat(h.find(old).dispatchedAt()).isNotNull();
    // The trigger's own fresh row is left to the trigger.
    assertThat(h.find(fresh).dispatchedAt()).isNull();
    assertThat(topic.count(fresh)).isZero();
  }
}
