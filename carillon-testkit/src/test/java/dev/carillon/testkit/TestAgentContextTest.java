package dev.carillon.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.RunCancelledException;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TestAgentContextTest {
  private static final Instant START = Instant.parse("2026-03-07T22:15:00Z");

  @Test
  void defaults_are_a_first_attempt_of_the_utc_day_of_the_start_with_the_default_timeout() {
    TestAgentContext context = TestAgentContext.builder().build();

    assertThat(context.taskId()).isEqualTo("test-task");
    assertThat(context.windowKey()).isEqualTo("2026-11-29");
    assertThat(context.windowStart()).isEqualTo(Instant.parse("2026-11-29T00:00:00Z"));
    assertThat(context.windowEnd()).isEqualTo(Instant.parse("2026-11-30T00:00:00Z"));
    assertThat(context.startedAt()).isEqualTo(Instant.parse(TestAgentContext.DEFAULT_START));
    assertThat(context.scheduledAt()).isEqualTo(context.startedAt());
    assertThat(context.deadline()).isEqualTo(Instant.parse("2026-11-29T08:30:00Z"));
    assertThat(context.attempt()).isEqualTo(1);
    assertThat(context.retryCount()).isZero();
    assertThat(context.previousFailureReason()).isEmpty();
    assertThat(context.paramsJson()).isEqualTo("{}");
    assertThat(context.idempotencyKey()).isEqualTo("test-task/2026-11-29");
  }

  @Test
  void the_start_is_read_from_the_clock_at_build_and_the_deadline_adds_the_timeout() {
    SettableClock clock = new SettableClock(START);
    TestAgentContext context =
        TestAgentContext.builder().clock(clock).timeout(Duration.ofMinutes(10)).build();
    clock.advance(Duration.ofMinutes(3));

    assertThat(context.startedAt()).isEqualTo(START);
    assertThat(context.deadline()).isEqualTo(START.plus(Duration.ofMinutes(10)));
    assertThat(context.windowKey()).isEqualTo("2026-03-07");
  }

  @Test
  void every_value_can_be_chosen() {
    Instant windowStart = Instant.parse("2026-03-07T00:00:00Z");
    TestAgentContext context =
        TestAgentContext.builder()
            .taskId("reports")
            .window("2026-W10", windowStart, windowStart.plus(Duration.ofDays(7)))
            .scheduledAt(windowStart.plusSeconds(60))
            .attempt(3)
            .retryCount(1)
            .previousFailureReason("tool timed out")
            .params("{\"a\":1}")
            .build();

    assertThat(context.idempotencyKey()).isEqualTo("reports/2026-W10");
    assertThat(context.windowEnd()).isEqualTo(Instant.parse("2026-03-14T00:00:00Z"));
    assertThat(context.scheduledAt()).isEqualTo(windowStart.plusSeconds(60));
    assertThat(context.attempt()).isEqualTo(3);
    assertThat(context.retryCount()).isEqualTo(1);
    assertThat(context.previousFailureReason()).contains("tool timed out");
    assertThat(context.paramsJson()).isEqualTo("{\"a\":1}");
  }

  @Test
  void a_retried_context_is_the_next_attempt_of_the_same_instance_with_the_failure() {
    TestAgentContext first = TestAgentContext.builder().taskId("reports").params("{}").build();

    TestAgentContext second = first.retried("boom");

    assertThat(second.idempotencyKey()).isEqualTo(first.idempotencyKey());
    assertThat(second.attempt()).isEqualTo(2);
    assertThat(second.retryCount()).isEqualTo(1);
    assertThat(second.previousFailureReason()).contains("boom");
    assertThat(second.startedAt()).isEqualTo(first.startedAt());
    assertThat(second.deadline()).isEqualTo(first.deadline());
  }

  @Test
  void heartbeats_are_recorded_in_order_until_the_test_cancels_the_run() {
    TestAgentContext context = TestAgentContext.of("{}");
    context.heartbeat("step 1");
    context.heartbeat(null);
    context.checkCancelled();

    context.cancel();
    context.heartbeat("after cancel");

    assertThat(context.heartbeats()).containsExactly("step 1", null);
    assertThat(context.isCancelled()).isTrue();
    assertThatThrownBy(context::checkCancelled)
        .isInstanceOf(RunCancelledException.class)
        .hasMessage("run test-task/2026-11-29 attempt 1 was cancelled");
  }

  @Test
  void bad_values_are_refused_naming_the_field_and_value() {
    TestAgentContext.Builder builder = TestAgentContext.builder();
    assertThatThrownBy(() -> builder.attempt(0)).hasMessage("attempt must be 1 or more, was 0");
    assertThatThrownBy(() -> builder.retryCount(-1))
        .hasMessage("retryCount must be 0 or more, was -1");
    assertThatThrownBy(() -> builder.timeout(Duration.ZERO))
        .hasMessage("timeout must be positive, was PT0S");
    assertThatThrownBy(() -> builder.window("w", START, START.minusSeconds(1)))
        .hasMessageContaining("window end 2026-03-07T22:14:59Z must not be before its start");
  }

  @Test
  void checkpoints_are_kept_with_the_workers_limits_and_refused_after_cancellation() {
    TestAgentContext context = TestAgentContext.builder().build();

    context.checkpoint("{\"next\":1}");
    context.checkpoint("{\"next\":2}");
    assertThat(context.checkpoints()).containsExactly("{\"next\":1}", "{\"next\":2}");
    assertThat(context.lastCheckpoint()).as("only earlier attempts' checkpoints").isEmpty();
    assertThatThrownBy(() -> context.checkpoint("[1]"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("checkpoint state must be a JSON object");
    assertThatThrownBy(() -> context.checkpoint("{\"x\":\"" + "y".repeat(70_000) + "\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than the 65536 a checkpoint holds");
    context.cancel();
    assertThatThrownBy(() -> context.checkpoint("{}")).isInstanceOf(RunCancelledException.class);
    assertThat(context.checkpoints()).hasSize(2);
  }

  @Test
  void the_retried_attempt_resumes_from_the_last_checkpoint_and_does_not_repeat_done_effects()
      throws Exception {
    SettableClock clock = new SettableClock(START);
    TestAgentContext first = TestAgentContext.builder().clock(clock).build();
    first.checkpoint("{\"next\":4}");
    assertThat(first.once("post", call -> "msg-" + call.idempotencyKey()))
        .isEqualTo("msg-test-task/2026-03-07/post");

    TestAgentContext second = first.retried("boom");
    AtomicInteger posts = new AtomicInteger();

    assertThat(second.lastCheckpoint())
        .hasValueSatisfying(
            c -> {
              assertThat(c.stateJson()).isEqualTo("{\"next\":4}");
              assertThat(c.attempt()).isEqualTo(1);
              assertThat(c.savedAt()).isEqualTo(START);
            });
    assertThat(second.once("post", call -> "again " + posts.incrementAndGet()))
        .isEqualTo("msg-test-task/2026-03-07/post");
    assertThat(posts).hasValue(0);
    assertThat(second.effectRuns("post")).isZero();
    assertThat(first.effectRuns("post")).isEqualTo(1);
    assertThat(second.effectResult("post")).hasValue("msg-test-task/2026-03-07/post");
    assertThat(second.retried("again").lastCheckpoint())
        .as("an attempt that saved nothing hands on what it resumed from")
        .hasValueSatisfying(c -> assertThat(c.attempt()).isEqualTo(1));
  }

  @Test
  void a_run_stopped_in_the_gap_leaves_the_effect_in_doubt_for_the_next_attempt() throws Exception {
    TestAgentContext first = TestAgentContext.builder().stopBeforeRecording("charge").build();
    List<String> calls = new CopyOnWriteArrayList<>();

    assertThatThrownBy(
            () -> first.once("charge", call -> calls.add(call.toString()) ? "ch_1" : null))
        .isInstanceOf(RunCancelledException.class);
    TestAgentContext second = first.retried("the worker died");
    second.once("charge", call -> calls.add(call.toString()) ? "ch_1" : null);

    assertThat(calls)
        .containsExactly(
            "EffectCall[key=charge, idempotencyKey=test-task/2026-11-29/charge, inDoubt=false]",
            "EffectCall[key=charge, idempotencyKey=test-task/2026-11-29/charge, inDoubt=true]");
    assertThat(second.effectDone("charge")).isTrue();
    assertThat(TestAgentContext.builder().effectInDoubt("charge").build().effectDone("charge"))
        .isFalse();
  }

  @Test
  void a_run_stops_where_the_builder_says_as_if_its_worker_died() throws Exception {
    TestAgentContext afterTwo = TestAgentContext.builder().stopAfterCheckpoints(2).build();
    afterTwo.checkpoint("{\"n\":1}");
    afterTwo.checkpoint("{\"n\":2}");
    assertThat(afterTwo.isCancelled()).isTrue();
    assertThatThrownBy(afterTwo::checkCancelled).isInstanceOf(RunCancelledException.class);

    TestAgentContext afterPost = TestAgentContext.builder().stopAfterEffect("post").build();
    assertThat(afterPost.once("post", call -> "sent")).isEqualTo("sent");
    assertThat(afterPost.effectDone("post")).isTrue();
    assertThatThrownBy(() -> afterPost.once("other", call -> "x"))
        .isInstanceOf(RunCancelledException.class);
    assertThat(afterPost.effectRuns("other")).isZero();
  }

  @Test
  void effects_an_earlier_attempt_left_are_chosen_on_the_builder() throws Exception {
    TestAgentContext context =
        TestAgentContext.builder()
            .attempt(3)
            .lastCheckpoint("{\"page\":7}", 2, START)
            .effectDone("post", "msg-9")
            .build();

    assertThat(context.lastCheckpoint())
        .hasValueSatisfying(c -> assertThat(c.attempt()).isEqualTo(2));
    assertThat(context.once("post", call -> "never")).isEqualTo("msg-9");
    assertThatThrownBy(() -> TestAgentContext.builder().lastCheckpoint("{}", 1, START).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lastCheckpoint's attempt 1 must be below the context's attempt 1");
    assertThatThrownBy(() -> context.once("not a key", call -> "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must match");
  }

  @Test
  void sixteen_threads_calling_once_with_one_key_run_the_effect_once() throws Exception {
    TestAgentContext context = TestAgentContext.builder().build();
    AtomicInteger runs = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return context.once("post", call -> "run " + runs.incrementAndGet());
                }));
      }
      go.countDown();
      for (Future<String> f : results) {
        assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo("run 1");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(runs).hasValue(1);
  }
}
