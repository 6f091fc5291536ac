package dev.carillon.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.api.Stability;
import java.util.List;
import org.junit.jupiter.api.Test;

class TestkitStabilityTest {
  private static final List<Class<?>> API =
      List.of(
          TestAgentContext.class,
          TestAgentContext.Builder.class,
          AgentHarness.class,
          TestRun.class,
          TestRun.Window.class,
          RunOutcome.class,
          RunOutcome.Status.class,
          RunEvent.class,
          RunCheckpoint.class,
          RunEffect.class);

  @Test
  void every_public_type_and_the_package_carry_a_stability_label() {
    for (Class<?> type : API) {
      assertThat(
              type.isAnnotationPresent(Stability.Stable.class)
                  || type.isAnnotationPresent(Stability.Evolving.class))
          .as(type.getName())
          .isTrue();
    }
    assertThat(AgentHarness.class.getPackage().isAnnotationPresent(Stability.Evolving.class))
        .isTrue();
  }
}
