package dev.carillon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AgentContextTest {

  /**
   * The least a context needs; the defaults under test come from the interface. Plugin tests use
   * {@code carillon-testkit}'s {@code TestAgentContext} instead, but this module cannot: the test
   * kit depends on it (and on the worker), and Maven refuses a cycle even in test scope.
   */
  private static final class FixedContext implements AgentContext {
    final AtomicBoolean cancelled = new AtomicBoolean();

    @Override
    public String taskId() {
      return "daily-digest";
    }

    @Override
    public String windowKey() {
      return "2026-11-29";
    }

    @Override
    public Instant windowStart() {
      return Instant.parse("2026-11-29T00:00:00Z");
    }

    @Override
    public Instant windowEnd() {
      return Instant.parse("2026-11-30T00:00:00Z");
    }

    @Override
    public Instant scheduledAt() {
      return Instant.parse("2026-11-29T08:00:00Z");
    }

    @Override
    public Instant startedAt() {
      return Instant.parse("2026-11-29T08:00:01Z");
    }

    @Override
    public int attempt() {
      return 2;
    }

    @Override
    public int retryCount() {
      return 1;
    }

    @Override
    public Optional<String> previousFailureReason() {
      return Optional.of("tool timed out");
    }

    @Override
    public Instant deadline() {
      return Instant.parse("2026-11-29T08:30:01Z");
    }

    @Override
    public String paramsJson() {
      return "{}";
    }

    @Override
    public void heartbeat(String progress) {}

    @Override
    public boolean isCancelled() {
      return cancelled.get();
    }
  }

  @Test
  void the_idempotency_key_is_task_id_slash_window_key() {
    assertThat(new FixedContext().idempotencyKey()).isEqualTo("daily-digest/2026-11-29");
  }

  @Test
  void check_cancelled_passes_while_the_run_is_live() {
    assertThatCode(new FixedContext()::checkCancelled).doesNotThrowAnyException();
  }

  @Test
  void check_cancelled_throws_naming_the_instance_and_attempt_once_cancelled() {
    FixedContext context = new FixedContext();
    context.cancelled.set(true);

    assertThatThrownBy(context::checkCancelled)
        .isInstanceOfSatisfying(
            RunCancelledException.class,
            e -> {
              assertThat(e.idempotencyKey()).isEqualTo("daily-digest/2026-11-29");
              assertThat(e.attempt()).isEqualTo(2);
            })
        .isInstanceOf(CancellationException.class)
        .hasMessage("run daily-digest/2026-11-29 attempt 2 was cancelled");
  }

  @Test
  void a_context_that_keeps_no_records_says_so_instead_of_losing_checkpoints_and_effects() {
    FixedContext context = new FixedContext();
    AtomicBoolean ran = new AtomicBoolean();

    assertThat(context.lastCheckpoint()).isEmpty();
    assertThatThrownBy(() -> context.checkpoint("{}"))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("keeps no checkpoints");
    assertThatThrownBy(
            () ->
                context.once(
                    "post",
                    call -> {
                      ran.set(true);
                      return "sent";
                    }))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("records no effects");
    assertThat(ran).as("the effect must not run unrecorded").isFalse();
  }

  @Test
  void a_checkpoint_names_a_missing_value_or_an_attempt_below_one() {
    Instant at = Instant.parse("2026-11-29T08:10:00Z");

    assertThat(new Checkpoint("{\"next\":3}", 1, at).stateJson()).isEqualTo("{\"next\":3}");
    assertThatThrownBy(() -> new Checkpoint(null, 1, at)).hasMessage("stateJson");
    assertThatThrownBy(() -> new Checkpoint("{}", 1, null)).hasMessage("savedAt");
    assertThatThrownBy(() -> new Checkpoint("{}", 0, at))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("attempt must be 1 or more, was 0");
  }

  @Test
  void effect_keys_are_short_names_without_spaces() {
    assertThat("post-digest").matches(Effect.KEY_PATTERN);
    assertThat("email:alice@example.com").matches(Effect.KEY_PATTERN);
    assertThat("").doesNotMatch(Effect.KEY_PATTERN);
    assertThat("post digest").doesNotMatch(Effect.KEY_PATTERN);
    assertThat("-post").doesNotMatch(Effect.KEY_PATTERN);
    assertThat("p".repeat(129)).doesNotMatch(Effect.KEY_PATTERN);
  }

  @Test
  void an_agent_task_runs_against_a_context_and_can_refuse_permanently() throws Exception {
    AgentTask echo =
        new AgentTask() {
          @Override
          public String type() {
            return "echo";
          }

          @Override
          public AgentResult run(AgentContext context) {
            if (context.retryCount() > 5) {
              throw new NonRetryableException("too many retries for " + context.idempotencyKey());
            }
            return AgentResult.of("ran " + context.idempotencyKey() + " #" + context.attempt());
          }
        };

    assertThat(echo.type()).matches(AgentTask.TYPE_PATTERN);
    assertThat(echo.run(new FixedContext()).summary()).isEqualTo("ran daily-digest/2026-11-29 #2");
  }
}
