package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.testkit.TestAgentContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class SleepAgentTest {
  private final SleepAgent agent = new SleepAgent();

  @Test
  void sleeps_for_the_duration_and_succeeds() throws Exception {
    long start = System.nanoTime();
    AgentResult r = agent.run(TestAgentContext.of("{\"duration\":\"200ms\"}"));
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
    assertThat(r.summary()).isEqualTo("slept PT0.2S on attempt 1");
  }

  @Test
  void fails_the_first_n_attempts_then_succeeds() throws Exception {
    TestAgentContext ctx = TestAgentContext.of("{\"duration\":\"0s\",\"failFirst\":2}");
    assertThatThrownBy(() -> agent.run(ctx.toBuilder().attempt(1).build()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("failing attempt 1 of the first 2");
    assertThatThrownBy(() -> agent.run(ctx.toBuilder().attempt(2).build()))
        .isInstanceOf(IllegalStateException.class);
    assertThat(agent.run(ctx.toBuilder().attempt(3).build()).summary()).contains("attempt 3");
  }

  @Test
  void non_retryable_failures_throw_the_non_retryable_exception() {
    TestAgentContext ctx =
        TestAgentContext.of("{\"duration\":\"0s\",\"failFirst\":1,\"nonRetryable\":true}");
    assertThatThrownBy(() -> agent.run(ctx)).isInstanceOf(NonRetryableException.class);
  }

  @Test
  void failure_rate_is_deterministic_per_key_and_attempt_and_roughly_honoured() {
    int failures = 0;
    for (int i = 0; i < 400; i++) {
      TestAgentContext ctx = TestAgentContext.builder().taskId("rate").windowKey("w" + i).build();
      assertThat(SleepAgent.draw(ctx)).isEqualTo(SleepAgent.draw(ctx));
      TestAgentContext run =
          ctx.toBuilder().params("{\"duration\":\"0s\",\"failureRate\":0.25}").build();
      try {
        agent.run(run);
      } catch (Exception e) {
        failures++;
      }
    }
    assertThat(failures).isBetween(60, 140);
  }

  @Test
  void result_bytes_returns_a_summary_of_exactly_that_size() throws Exception {
    AgentResult r = agent.run(TestAgentContext.of("{\"duration\":\"0s\",\"resultBytes\":10000}"));
    assertThat(r.summary().getBytes(StandardCharsets.UTF_8)).hasSize(10000);
  }

  @Test
  void throw_error_throws_the_named_error() {
    assertThatThrownBy(
            () ->
                agent.run(
                    TestAgentContext.of(
                        "{\"duration\":\"0s\",\"throwError\":\"StackOverflowError\"}")))
        .isInstanceOf(StackOverflowError.class);
    assertThatThrownBy(
            () -> agent.run(TestAgentContext.of("{\"duration\":\"0s\",\"throwError\":\"boom\"}")))
        .isExactlyInstanceOf(Error.class)
        .hasMessageContaining("boom");
  }

  @Test
  void an_interrupt_ends_the_sleep_with_interrupted_exception() throws Exception {
    CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try {
                agent.run(TestAgentContext.of("{\"duration\":\"30s\"}"));
                outcome.complete(null);
              } catch (Throwable e) {
                outcome.complete(e);
              }
            });
    t.start();
    t.interrupt();
    assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
  }

  @Test
  void ignore_interrupts_keeps_sleeping_and_restores_the_flag() throws Exception {
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    long start = System.nanoTime();
    Thread t =
        new Thread(
            () -> {
              try {
                agent.run(
                    TestAgentContext.of("{\"duration\":\"300ms\",\"ignoreInterrupts\":true}"));
                interruptedAfter.complete(Thread.currentThread().isInterrupted());
              } catch (Throwable e) {
                interruptedAfter.completeExceptionally(e);
              }
            });
    t.start();
    t.interrupt();
    assertThat(interruptedAfter.get()).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void a_wrongly_typed_param_is_a_non_retryable_failure() {
    assertThatThrownBy(() -> agent.run(TestAgentContext.of("{\"duration\":5}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("\"duration\"");
    assertThatThrownBy(() -> agent.run(TestAgentContext.of("not json")))
        .isInstanceOf(NonRetryableException.class);
  }
}
