package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.Outcome;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class OutcomesTest {

  private static int utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }

  @Test
  void a_summary_within_the_limit_is_kept_whole() {
    Outcome o = Outcomes.success(AgentResult.of("ok", URI.create("file:/tmp/x")), 16);
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("ok");
    assertThat(o.truncated()).isFalse();
    assertThat(o.uri()).isEqualTo("file:/tmp/x");
  }

  @Test
  void a_long_summary_is_cut_at_a_character_boundary_within_the_limit_and_marked() {
    // 'é' is 2 bytes, '😀' 4 bytes (a surrogate pair): every cut position lands somewhere odd.
    String text = "é😀".repeat(500);
    for (int max = 16; max < 80; max++) {
      Outcomes.Summary s = Outcomes.truncate(text, max);
      assertThat(s.truncated()).isTrue();
      assertThat(utf8(s.text())).isLessThanOrEqualTo(max);
      assertThat(s.text()).endsWith(Outcomes.TRUNCATION_MARK);
      String kept = s.text().substring(0, s.text().length() - Outcomes.TRUNCATION_MARK.length());
      assertThat(text).startsWith(kept);
      // No half surrogate pair survives.
      assertThat(kept.isEmpty() || !Character.isHighSurrogate(kept.charAt(kept.length() - 1)))
          .isTrue();
      assertThat(new String(kept.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
          .isEqualTo(kept);
    }
  }

  @Test
  void the_default_limit_is_four_kib() {
    Outcomes.Summary s =
        Outcomes.truncate("x".repeat(10_000), AgentResult.DEFAULT_MAX_SUMMARY_BYTES);
    assertThat(utf8(s.text())).isEqualTo(4096);
  }

  @Test
  void a_failure_records_the_exception_class_and_message() {
    Outcome o = Outcomes.failure(new IllegalStateException("tool said no"));
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(o.reason()).isEqualTo("java.lang.IllegalStateException: tool said no");
    assertThat(o.nonRetryable()).isFalse();
  }

  @Test
  void a_non_retryable_exception_anywhere_in_the_cause_chain_makes_the_failure_non_retryable() {
    Exception wrapped =
        new ExecutionException(new RuntimeException(new NonRetryableException("bad params")));
    Outcome o = Outcomes.failure(wrapped);
    assertThat(o.nonRetryable()).isTrue();
    assertThat(o.reason())
        .startsWith("dev.carillon.api.NonRetryableException: bad params")
        .contains("wrapped in java.util.concurrent.ExecutionException");
  }

  @Test
  void a_long_message_is_clipped_to_512_characters() {
    Outcome o = Outcomes.failure(new RuntimeException("m".repeat(5000)));
    assertThat(o.reason()).hasSize(Outcome.MAX_REASON).endsWith("...");
  }

  @Test
  void a_cause_loop_does_not_hang() {
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(Outcomes.failure(b).nonRetryable()).isFalse();
  }
}
