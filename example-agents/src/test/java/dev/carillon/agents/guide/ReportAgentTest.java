package dev.carillon.agents.guide;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.api.RunCancelledException;
import dev.carillon.testing.SettableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin guide's unit-test example: a hand-written context and a settable clock. */
class ReportAgentTest {
  private static final Instant STARTED = Instant.parse("2026-11-29T08:00:00Z");

  @TempDir Path outbox;

  /** One attempt of instance {@code reports/2026-11-29}, with a 10-minute deadline. */
  static final class FakeContext implements AgentContext {
    final String params;
    final int attempt;
    final List<String> heartbeats = new ArrayList<>();
    volatile boolean cancelled;

    FakeContext(String params, int attempt) {
      this.params = params;
      this.attempt = attempt;
    }

    @Override
    public String taskId() {
      return "reports";
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
      return STARTED;
    }

    @Override
    public Instant startedAt() {
      return STARTED;
    }

    @Override
    public int attempt() {
      return attempt;
    }

    @Override
    public int retryCount() {
      return attempt - 1;
    }

    @Override
    public Optional<String> previousFailureReason() {
      return Optional.empty();
    }

    @Override
    public Instant deadline() {
      return STARTED.plus(Duration.ofMinutes(10));
    }

    @Override
    public String paramsJson() {
      return params;
    }

    @Override
    public void heartbeat(String progress) {
      heartbeats.add(progress);
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }
  }

  private String params() {
    return "{\"title\":\"Orders\",\"sections\":[\"orders\",\"refunds\"],\"outbox\":\""
        + outbox
        + "\"}";
  }

  @Test
  void publishes_one_report_per_window_and_returns_a_summary_and_its_uri() throws Exception {
    FakeContext ctx = new FakeContext(params(), 1);
    AgentResult r = new ReportAgent(new SettableClock(STARTED)).run(ctx);

    assertThat(r.summary()).isEqualTo("2 sections for 2026-11-29 published");
    Path file = Path.of(r.artifactUri());
    assertThat(file).isEqualTo(outbox.resolve("reports_2026-11-29.md"));
    assertThat(Files.readString(file))
        .startsWith("# Orders (2026-11-29)")
        .contains("## orders", "## refunds");
    assertThat(ctx.heartbeats).containsExactly("section 1 of 2: orders", "section 2 of 2: refunds");
  }

  @Test
  void a_retry_of_the_same_window_does_not_publish_twice() throws Exception {
    ReportAgent agent = new ReportAgent(new SettableClock(STARTED));
    AgentResult first = agent.run(new FakeContext(params(), 1));
    String published = Files.readString(Path.of(first.artifactUri()));

    AgentResult second = agent.run(new FakeContext(params(), 2));
    assertThat(second.artifactUri()).isEqualTo(first.artifactUri());
    assertThat(second.summary()).startsWith("already published by an earlier attempt");
    assertThat(Files.readString(Path.of(second.artifactUri()))).isEqualTo(published);
    try (var files = Files.list(outbox)) {
      assertThat(files).hasSize(1);
    }
  }

  @Test
  void bad_params_are_not_retryable() {
    ReportAgent agent = new ReportAgent(new SettableClock(STARTED));
    assertThatThrownBy(() -> agent.run(new FakeContext("{}", 1)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("\"sections\" must be a non-empty array");
    assertThatThrownBy(() -> agent.run(new FakeContext("{\"sections\":[1]}", 1)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("found 1");
    assertThatThrownBy(() -> agent.run(new FakeContext("not json", 1)))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("not JSON");
  }

  @Test
  void a_section_that_cannot_finish_before_the_deadline_is_not_started() {
    SettableClock clock = new SettableClock(STARTED);
    clock.set(STARTED.plus(Duration.ofMinutes(10)).minusSeconds(20)); // 20s left, budget 30s
    assertThatThrownBy(() -> new ReportAgent(clock).run(new FakeContext(params(), 1)))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(NonRetryableException.class)
        .hasMessage("only 20s left before the deadline; section 'orders' needs 30s");
    assertThat(outbox).isEmptyDirectory();
  }

  @Test
  void a_cancelled_run_stops_and_publishes_nothing() {
    FakeContext ctx = new FakeContext(params(), 1);
    ctx.cancelled = true;
    assertThatThrownBy(() -> new ReportAgent(new SettableClock(STARTED)).run(ctx))
        .isInstanceOf(RunCancelledException.class);
    assertThat(outbox).isEmptyDirectory();
    assertThat(ctx.heartbeats).isEmpty();
  }
}
