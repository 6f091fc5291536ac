package dev.carillon.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class StabilityTest {
  private static final List<Class<?>> API =
      List.of(
          AgentTask.class,
          AgentContext.class,
          AgentResult.class,
          NonRetryableException.class,
          RunCancelledException.class,
          Checkpoint.class,
          Effect.class,
          EffectCall.class,
          Stability.class);

  @Test
  void every_public_api_type_and_the_package_carry_a_stability_label() {
    for (Class<?> type : API) {
      assertThat(
              type.isAnnotationPresent(Stability.Stable.class)
                  || type.isAnnotationPresent(Stability.Evolving.class))
          .as(type.getSimpleName())
          .isTrue();
    }
    assertThat(AgentTask.class.getPackage().isAnnotationPresent(Stability.Stable.class)).isTrue();
  }

  @Test
  void the_context_is_evolving_because_the_worker_may_add_accessors() {
    assertThat(AgentContext.class.isAnnotationPresent(Stability.Evolving.class)).isTrue();
    assertThat(AgentTask.class.isAnnotationPresent(Stability.Stable.class)).isTrue();
  }

  @Test
  void non_retryable_and_cancelled_are_unchecked_so_agents_need_not_declare_them() {
    assertThat(RuntimeException.class).isAssignableFrom(NonRetryableException.class);
    assertThat(RuntimeException.class).isAssignableFrom(RunCancelledException.class);
    NonRetryableException e = new NonRetryableException("bad params", new IllegalStateException());
    assertThat(e).hasMessage("bad params").hasCauseInstanceOf(IllegalStateException.class);
  }
}
