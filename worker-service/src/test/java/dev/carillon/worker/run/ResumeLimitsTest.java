package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.api.Checkpoint;
import dev.carillon.api.Effect;
import dev.carillon.model.resume.ResumeRules;
import org.junit.jupiter.api.Test;

/**
 * The plugin API states the limits of checkpoints and effects as constants and the domain enforces
 * its own copy (it cannot import the API); this module sees both and holds them equal.
 */
class ResumeLimitsTest {
  @Test
  void the_api_and_the_domain_state_the_same_limits() {
    assertThat(Checkpoint.MAX_STATE_BYTES).isEqualTo(ResumeRules.MAX_CHECKPOINT_BYTES);
    assertThat(Effect.KEY_PATTERN).isEqualTo(ResumeRules.EFFECT_KEY_PATTERN);
    assertThat(Effect.MAX_RESULT_BYTES).isEqualTo(ResumeRules.MAX_EFFECT_RESULT_BYTES);
  }
}
