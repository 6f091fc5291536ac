package dev.carillon.retry.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.retry.ExponentialRetry;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.tuning.EffectivePolicy;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.retry.RetryMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TuningTest {
  private final List<RateLimitSettings> rateChanges = new ArrayList<>();
  private final RetryMetrics metrics = new RetryMetrics(new SimpleMeterRegistry());
  private final Tuning tuning = new Tuning(RateLimitSettings.DEFAULTS, rateChanges::add, metrics);
  private final Optional<RetryPolicy> own = Optional.of(new ImmediateRetry(2));

  @Test
  void an_override_wins_a_bad_value_keeps_it_and_a_tombstone_reverts_to_the_definition() {
    assertThat(tuning.apply("retry/t", "{\"policy\":\"EXPONENTIAL\",\"initial\":\"2m\"}", 4))
        .isTrue();
    EffectivePolicy p = tuning.effectivePolicy("t", own, 9);
    assertThat(p.version()).isEqualTo(4);
    assertThat(((ExponentialRetry) p.policy()).initial()).isEqualTo(Duration.ofMinutes(2));

    assertThat(tuning.apply("retry/t", "{\"policy\":\"EXPONENTIAL\",\"initial\":-3}", 5)).isFalse();
    assertThat(tuning.effectivePolicy("t", own, 9).version()).isEqualTo(4);
    assertThat(tuning.lastOffset()).isEqualTo(5);
    assertThat(metrics.totals().configRejected()).isEqualTo(1);

    assertThat(tuning.apply("retry/t", null, 6)).isTrue();
    EffectivePolicy back = tuning.effectivePolicy("t", own, 9);
    assertThat(back.source()).isEqualTo(EffectivePolicy.Source.DEFINITION);
    assertThat(back.version()).isEqualTo(9);
  }

  @Test
  void rate_limit_changes_are_passed_on_and_a_tombstone_restores_the_base() {
    tuning.apply(
        "ratelimit/global",
        "{\"perSecond\": 1, \"burst\": 2, \"perTaskPerSecond\": 3, \"maxPerScan\": 4}",
        0);
    tuning.apply("ratelimit/global", "{\"perSecond\": 1}", 1);
    tuning.apply("ratelimit/global", null, 2);
    assertThat(rateChanges)
        .containsExactly(new RateLimitSettings(1, 2, 3, 4), RateLimitSettings.DEFAULTS);
    assertThat(metrics.totals().configRejected()).isEqualTo(1);
  }

  @Test
  void records_with_unknown_or_missing_keys_are_rejected_without_changing_anything() {
    assertThat(tuning.apply(null, "{}", 0)).isFalse();
    assertThat(tuning.apply("backoff/x", "{}", 1)).isFalse();
    assertThat(tuning.apply("retry/UPPER", "{\"policy\":\"NONE\"}", 2)).isFalse();
    assertThat(tuning.effectivePolicy("x", Optional.of(RetryPolicy.none()), 1).source())
        .isEqualTo(EffectivePolicy.Source.NONE);
    assertThat(metrics.totals().configRejected()).isEqualTo(3);
  }
}
