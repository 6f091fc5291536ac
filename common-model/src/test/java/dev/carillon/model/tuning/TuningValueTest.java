package dev.carillon.model.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.DelayedRetry;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TuningValueTest {

  @Test
  void keys_are_retry_default_retry_task_or_ratelimit_global() {
    assertThat(TuningKey.parse("retry/default").kind()).isEqualTo(TuningKey.Kind.RETRY_DEFAULT);
    assertThat(TuningKey.parse("retry/daily-digest").taskId()).contains("daily-digest");
    assertThat(TuningKey.parse("ratelimit/global").kind()).isEqualTo(TuningKey.Kind.RATE_LIMIT);
    assertThat(TuningKey.parse("retry/daily-digest")).hasToString("retry/daily-digest");
  }

  @Test
  void a_bad_key_names_the_field_key_and_the_value() {
    assertThatThrownBy(() -> TuningKey.parse("retry/Bad Id"))
        .isInstanceOf(InvalidValueException.class)
        .hasMessageContaining("key='retry/Bad Id'");
    assertThatThrownBy(() -> TuningKey.parse("ratelimit/task-x"))
        .hasMessageContaining("must be retry/default, retry/<task-id> or ratelimit/global");
    assertThatThrownBy(() -> TuningKey.parse(null)).hasMessageContaining("key=<missing>");
  }

  @Test
  void the_effective_policy_is_task_override_then_definition_then_default_then_none() {
    Versioned<RetryPolicy> task = new Versioned<>(new ImmediateRetry(1), 10);
    Versioned<RetryPolicy> dflt =
        new Versioned<>(new DelayedRetry(List.of(Duration.ofMinutes(1)), 1), 11);
    Optional<RetryPolicy> own = Optional.of(new ImmediateRetry(5));
    Optional<RetryPolicy> none = Optional.of(RetryPolicy.none());

    assertThat(EffectivePolicy.choose(Optional.of(task), own, 3, Optional.of(dflt)))
        .isEqualTo(new EffectivePolicy(task.value(), 10, EffectivePolicy.Source.TASK_OVERRIDE));
    assertThat(EffectivePolicy.choose(Optional.empty(), own, 3, Optional.of(dflt)))
        .isEqualTo(new EffectivePolicy(own.get(), 3, EffectivePolicy.Source.DEFINITION));
    assertThat(EffectivePolicy.choose(Optional.empty(), none, 3, Optional.of(dflt)))
        .isEqualTo(new EffectivePolicy(dflt.value(), 11, EffectivePolicy.Source.DEFAULT_OVERRIDE));
    assertThat(
            EffectivePolicy.choose(Optional.empty(), Optional.empty(), 0, Optional.of(dflt))
                .source())
        .isEqualTo(EffectivePolicy.Source.DEFAULT_OVERRIDE);
    assertThat(EffectivePolicy.choose(Optional.empty(), none, 3, Optional.empty()))
        .isEqualTo(new EffectivePolicy(RetryPolicy.none(), 3, EffectivePolicy.Source.NONE));
    // An explicit policy with zero retries is the owner's choice, not "said nothing".
    assertThat(
            EffectivePolicy.choose(
                    Optional.empty(), Optional.of(new ImmediateRetry(0)), 3, Optional.of(dflt))
                .source())
        .isEqualTo(EffectivePolicy.Source.DEFINITION);
  }
}
