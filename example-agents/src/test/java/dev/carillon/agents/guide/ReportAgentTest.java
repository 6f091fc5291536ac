package dev.carillon.agents.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.api.RunCancelledException;
import dev.carillon.testing.SettableClock;
import dev.carillon.testkit.TestAgentContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin guide's unit-test example: the test kit's context and a settable clock. */
class ReportAgentTest {
  private static final Instant STARTED = Instant.parse("2026-11-29T08:00:00Z");

  @TempDir Path outbox;

  /** The first attempt of instance {@code reports/2026-11-29}, with a 10-minute deadline. */
  private static TestAgentContext context(SettableClock clock, String params) {
    return TestAgentContext.builder()
        .taskId("reports")
        .params(params)
        .clock(clock)
        .timeout(Duration.ofMinutes(10))
        .build();
  }

  private String params() {
    return "{\"title\":\"Orders\",\"sections\":[\"orders\",\"refunds\"],\"outbox\":\""
        + outbox
        + "\"}";
  }

  @Test
  void publishes_one_report_per_window_and_returns_a_summary_and_its_uri() throws Exception {
    SettableClock clock = new SettableClock(STARTED);
    TestAgentContext ctx = context(clock, params());
    AgentResult r = new ReportAgent(clock).run(ctx);

    assertThat(r.summary()).isEqualTo("2 sections for 2026-11-29 published");
    Path file = Path.of(r.artifactUri());
    assertThat(file).isEqualTo(outbox.resolve("reports_2026-11-29.md"));
    assertThat(Files.readString(file))
        .startsWith("# Orders (2026-11-29)")
        .contains("## orders", "## refunds");
    assertThat(ctx.heartbeats())
        .containsExactly("section 1 of 2: orders", "section 2 of 2: refunds");
  }

  @Test
  void a_retry_of_the_same_window_does_not_publish_twice() throws Exception {
    SettableClock clock = new SettableClock(STARTED);
    ReportAgent agent = new ReportAgent(clock);
    TestAgentContext first = context(clock, params());
    AgentResult published = agent.run(first);
    String text = Files.readString(Path.of(published.artifactUri()));

    // The worker died after publishing, before SUCCESS was recorded; the retry runs the instance.
    AgentResult second = agent.run(first.retried("worker lost"));
    assertThat(second.artifactUri()).isEqualTo(published.artifactUri());
    assertThat(second.summary()).startsWith("already published by an earlier attempt");
    assertThat(Files.readString(Path.of(second.artifactUri()))).isEqualTo(text);
    try (var files = Files.list(outbox)) {
      assertThat(files).hasSize(1);
    }
  }

  @Test
  void bad_params_are_not_retryable() {
    SettableClock clock = new SettableClock(STARTED);
    ReportAgent agent = new ReportAgent(clock);
    assertThatThrownBy(() -> agent.run(context(clock, "{}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("\"sections\" must be a non-empty array");
    assertThatThrownBy(() -> agent.run(context(clock, "{\"sections\":[1]}")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("found 1");
    assertThatThrownBy(() -> agent.run(context(clock, "not json")))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void a_section_that_cannot_finish_before_the_deadline_is_not_started() {
    SettableClock clock = new SettableClock(STARTED);
    TestAgentContext ctx = context(clock, params());
    clock.set(ctx.deadline().minusSeconds(20)); // 20s left, budget 30s
    assertThatThrownBy(() -> new ReportAgent(clock).run(ctx))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(NonRetryableException.class)
        .hasMessage("only 20s left before the deadline; section 'orders' needs 30s");
    assertThat(outbox).isEmptyDirectory();
  }

  @Test
  void a_cancelled_run_stops_and_publishes_nothing() {
    SettableClock clock = new SettableClock(STARTED);
    TestAgentContext ctx = context(clock, params());
    ctx.cancel();
    assertThatThrownBy(() -> new ReportAgent(clock).run(ctx))
        .isInstanceOf(RunCancelledException.class);
    assertThat(outbox).isEmptyDirectory();
    assertThat(ctx.heartbeats()).isEmpty();
  }
}
