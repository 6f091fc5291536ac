package dev.carillon.model.resume;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResumeRulesTest {

  @Test
  void a_checkpoint_is_one_json_object_of_at_most_64_kib() {
    assertThat(ResumeRules.checkpointState("{\"next\":3,\"done\":[\"a\",\"b\"]}")).isEmpty();
    assertThat(ResumeRules.checkpointState("{}")).isEmpty();
    assertThat(ResumeRules.checkpointState("[]")).hasValue("must be a JSON object");
    assertThat(ResumeRules.checkpointState("\"text\"")).hasValue("must be a JSON object");
    assertThat(ResumeRules.checkpointState(null)).hasValue("must be a JSON object, not null");
    assertThat(ResumeRules.checkpointState("{\"a\":1} {}"))
        .get()
        .asString()
        .startsWith("is not JSON");
  }

  @Test
  void the_size_limit_counts_utf8_bytes_and_is_inclusive() {
    String filler = "x".repeat(ResumeRules.MAX_CHECKPOINT_BYTES - 8);
    String exact = "{\"x\":\"" + filler + "\"}";
    assertThat(exact.getBytes(StandardCharsets.UTF_8)).hasSize(ResumeRules.MAX_CHECKPOINT_BYTES);
    assertThat(ResumeRules.checkpointState(exact)).isEmpty();
    String oneMore = "{\"x\":\"" + filler.substring(1) + "é\"}";
    assertThat(ResumeRules.checkpointState(oneMore))
        .hasValueSatisfying(p -> assertThat(p).startsWith("is 65537 bytes of UTF-8"));
  }

  @Test
  void the_utf8_length_agrees_with_the_encoder_for_every_kind_of_character() {
    for (String s : List.of("", "ascii", "é", "日本語", "emoji 😀 and more 😀😀", "mixé日😀")) {
      assertThat(ResumeRules.utf8Length(s))
          .as(s)
          .isEqualTo(s.getBytes(StandardCharsets.UTF_8).length);
    }
  }

  @Test
  void effect_keys_and_results_have_their_own_limits() {
    assertThat(ResumeRules.effectKey("post-digest")).isEmpty();
    assertThat(ResumeRules.effectKey("email:ops@example.com/1")).isEmpty();
    assertThat(ResumeRules.effectKey("two words")).isPresent();
    assertThat(ResumeRules.effectKey(null)).isPresent();
    assertThat(ResumeRules.effectResult(null)).isEmpty();
    assertThat(ResumeRules.effectResult("r".repeat(4096))).isEmpty();
    assertThat(ResumeRules.effectResult("r".repeat(4097)))
        .hasValue("is 4097 bytes of UTF-8, more than the 4096 an effect's result holds");
  }
}
