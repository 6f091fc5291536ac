package dev.carillon.agents.followup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.NonRetryableException;
import dev.carillon.client.CarillonClient;
import dev.carillon.testkit.TestAgentContext;
import org.junit.jupiter.api.Test;

/**
 * The follow-up agent's own rules, without an API: the last step schedules nothing, bad params and
 * a worker without the API's variables fail permanently naming what to fix. The follow-up through
 * the real API and worker: local-stack's FollowUpAgentTest.
 */
class FollowUpAgentTest {
  private static FollowUpAgent withoutApi() {
    return new FollowUpAgent(
        () -> {
          throw new IllegalArgumentException(CarillonClient.ENV_URL + " is not set");
        });
  }

  @Test
  void the_last_step_succeeds_without_asking_the_api() throws Exception {
    assertThat(withoutApi().run(TestAgentContext.of("{\"steps\":2,\"step\":2}")).summary())
        .isEqualTo("step 2 of 2 done; the last, no follow-up");
    assertThat(withoutApi().run(TestAgentContext.of("{}")).summary())
        .isEqualTo("step 1 of 1 done; the last, no follow-up");
  }

  @Test
  void
      a_step_with_a_follow_up_on_a_worker_without_the_api_fails_permanently_naming_the_variables() {
    assertThatThrownBy(() -> withoutApi().run(TestAgentContext.of("{\"steps\":2}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("set CARILLON_API_URL and CARILLON_API_TOKEN")
        .hasMessageContaining("CARILLON_API_URL is not set");
  }

  @Test
  void bad_params_fail_permanently_naming_the_param_and_value() {
    assertThatThrownBy(() -> withoutApi().run(TestAgentContext.of("{\"steps\":0}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessage("follow-up: steps=0 must be a whole number from 1 to 100");
    assertThatThrownBy(() -> withoutApi().run(TestAgentContext.of("{\"steps\":2,\"step\":3}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessage("follow-up: step=3 is beyond steps=2 (params)");
    assertThatThrownBy(() -> withoutApi().run(TestAgentContext.of("{\"step\":\"two\"}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessage("follow-up: step=\"two\" must be a whole number from 1 to 100");
  }
}
