package dev.carillon.retry;

import static dev.carillon.model.instance.InstanceStatus.FAILED;
import static dev.carillon.model.instance.InstanceStatus.RETRY_WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.retry.ExponentialRetry;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Overrides on the config topic apply live; bad records are refused; tombstones revert. */
@Timeout(120)
class ConfigTopicTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static Harness h;
  private static RetryService service;
  private static int day;

  @BeforeAll
  static void start() {
    h = new Harness("config_topic");
    service = h.start(Map.of(), new SettableClock(Instant.parse("2026-03-29T08:00:00Z")));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /** Fails a fresh instance of {@code task} and runs one pass; returns it decided. */
  private static Instance failAndDecide(String task) {
    String window = String.format("2026-01-%02d", ++day);
    long id = h.newInstance(task, window, Duration.ofMinutes(5)).id();
    h.fail(h.claim(id, "w"), "boom", false);
    service.scanOnce();
    return h.find(id);
  }

  /** The wait the decision chose: from the failure (database time) to the next attempt. */
  private static Duration backoff(Instance i) {
    assertThat(i.status()).isEqualTo(RETRY_WAIT);
    Instant failedAt = h.transitionsTo(i.id(), FAILED).get(0).at();
    return Duration.between(failedAt, i.nextAttemptAt());
  }

  @Test
  void
      a_backoff_override_applies_to_the_next_decision_a_bad_record_is_refused_and_a_tombstone_reverts()
          throws Exception {
    String task =
        h.define(
                Tasks.daily("tuned")
                    .retry(
                        new ExponentialRetry(
                            Duration.ofMinutes(1), 2.0, Duration.ofHours(1), 0.0, 3))
                    .version(7))
            .id();
    Instance before = failAndDecide(task);
    assertThat(backoff(before)).isEqualTo(Duration.ofMinutes(1));
    // Without an override the definition's version is stamped.
    assertThat(before.policyVersion()).isEqualTo(7L);

    long v1 =
        h.publishConfig(
            "retry/" + task, "{\"policy\":\"EXPONENTIAL\",\"initial\":\"7m\",\"maxRetries\":3}");
    await("the service to read the first override")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(v1));
    Instance overridden = failAndDecide(task);
    assertThat(h.find(overridden.id()).policyVersion()).isEqualTo(v1);
    assertThat(h.transitionsTo(overridden.id(), RETRY_WAIT).get(0).reason())
        .contains("from retry/tuned@" + v1);

    long rejectedBefore = service.metrics().totals().configRejected();
    long bad =
        h.publishConfig("retry/" + task, "{\"policy\":\"EXPONENTIAL\",\"initial\":\"banana\"}");
    await("the service to read the invalid record")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(bad));
    assertThat(service.metrics().totals().configRejected()).isEqualTo(rejectedBefore + 1);
    assertThat(service.tuning().taskOverride(task).orElseThrow().version()).isEqualTo(v1);
    Instance stillOverridden = failAndDecide(task);
    assertThat(backoff(stillOverridden)).isEqualTo(Duration.ofMinutes(7));
    assertThat(stillOverridden.policyVersion()).isEqualTo(v1);

    long gone = h.publishConfig("retry/" + task, null);
    await("the service to read the tombstone")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(gone));
    assertThat(service.tuning().taskOverride(task)).isEmpty();
    Instance reverted = failAndDecide(task);
    assertThat(backoff(reverted)).isEqualTo(Duration.ofMinutes(1));
    assertThat(reverted.policyVersion()).isEqualTo(7L);
    assertThat(backoff(overridden)).isEqualTo(Duration.ofMinutes(7));
  }

  @Test
  void the_default_override_makes_tasks_without_a_policy_retryable_but_not_tasks_with_one()
      throws Exception {
    String plain = h.define(Tasks.daily("plain")).id();
    String own =
        h.define(
                Tasks.daily("own")
                    .retry(
                        new ExponentialRetry(
                            Duration.ofMinutes(2), 2.0, Duration.ofHours(1), 0.0, 3)))
            .id();
    long v =
        h.publishConfig(
            "retry/default", "{\"policy\":\"DELAYED\",\"delays\":[\"3m\"],\"maxRetries\":1}");
    await("the default override to apply")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(service.tuning().defaultOverride()).isPresent());

    Instance a = failAndDecide(plain);
    Instance b = failAndDecide(own);

    assertThat(backoff(a)).isEqualTo(Duration.ofMinutes(3));
    assertThat(a.policyVersion()).isEqualTo(v);
    assertThat(backoff(b)).isEqualTo(Duration.ofMinutes(2));

    long gone = h.publishConfig("retry/default", null);
    await("the service to read the tombstone")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(gone));
    assertThat(failAndDecide(plain).status())
        .isEqualTo(dev.carillon.model.instance.InstanceStatus.DEAD);
  }

  @Test
  void rate_limits_change_live_and_an_unknown_key_is_refused() throws Exception {
    long v =
        h.publishConfig(
            "ratelimit/global",
            "{\"perSecond\": 5, \"burst\": 7, \"perTaskPerSecond\": 2, \"maxPerScan\": 9}");
    await("the service to read the override")
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(v));
    assertThat(service.tuning().rateLimits()).isEqualTo(new RateLimitSettings(5, 7, 2, 9));

    long rejectedBefore = service.metrics().totals().configRejected();
    long bad =
        h.publishConfig(
            "ratelimit/global",
            "{\"perSecond\": -1, \"burst\": 7, \"perTaskPerSecond\": 2, \"maxPerScan\": 9}");
    long unknown = h.publishConfig("retry/Not A Task", "{\"policy\":\"NONE\"}");
    await("the service to read the invalid and the unknown record")
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(service.tuning().lastOffset())
                    .isGreaterThanOrEqualTo(Math.max(bad, unknown)));
    assertThat(service.metrics().totals().configRejected()).isEqualTo(rejectedBefore + 2);
    assertThat(service.tuning().rateLimits()).isEqualTo(new RateLimitSettings(5, 7, 2, 9));

    long gone = h.publishConfig("ratelimit/global", null);
    await("the service to read the tombstone")
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(gone));
    assertThat(service.tuning().rateLimits()).isEqualTo(service.settings().rate());
  }
}
