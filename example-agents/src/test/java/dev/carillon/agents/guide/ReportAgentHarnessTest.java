package dev.carillon.agents.guide;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.testkit.AgentHarness;
import dev.carillon.testkit.RunOutcome;
import dev.carillon.testkit.TestRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The plugin guide's end-to-end example: the report agent in the real worker, on devstack. */
@Timeout(120)
class ReportAgentHarnessTest {
  static AgentHarness harness;

  @TempDir Path outbox;

  @BeforeAll
  static void start() {
    harness = AgentHarness.start(new ReportAgent());
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  private String params(String sections) {
    return "{\"title\":\"Orders\",\"sections\":" + sections + ",\"outbox\":\"" + outbox + "\"}";
  }

  @Test
  void a_report_run_by_the_worker_succeeds_and_its_file_is_the_recorded_artifact()
      throws Exception {
    Instant day = Instant.parse("2026-11-29T00:00:00Z");
    RunOutcome outcome =
        harness.run(
            TestRun.of("report")
                .withTaskId("reports")
                .withWindow("2026-11-29", day, day.plus(Duration.ofDays(1)))
                .withTimeout(Duration.ofMinutes(10)) // each section is budgeted 30 s
                .withParams(params("[\"orders\",\"refunds\"]")));

    assertThat(outcome.succeeded()).as(outcome.toString()).isTrue();
    assertThat(outcome.summary()).contains("2 sections for 2026-11-29 published");
    Path report = outbox.resolve("reports_2026-11-29.md");
    assertThat(outcome.artifact()).contains(report.toUri());
    assertThat(Files.readString(report)).startsWith("# Orders (2026-11-29)");
  }

  @Test
  void bad_params_fail_permanently_with_the_reason() {
    RunOutcome outcome = harness.run("report", params("[]"));

    assertThat(outcome.failedPermanently()).as(outcome.toString()).isTrue();
    assertThat(outcome.failReason())
        .hasValueSatisfying(r -> assertThat(r).contains("\"sections\" must be a non-empty array"));
  }

  @Test
  void a_deadline_too_close_for_a_section_fails_retryably() {
    // A 1 s timeout leaves less than the 30 s a section is budgeted: the agent refuses to start it,
    // and a retry (with a new deadline) may succeed.
    RunOutcome outcome =
        harness.run(
            TestRun.of("report")
                .withParams(params("[\"orders\"]"))
                .withTimeout(Duration.ofSeconds(1)));

    assertThat(outcome.failedRetryably()).as(outcome.toString()).isTrue();
    assertThat(outcome.failReason())
        .hasValueSatisfying(r -> assertThat(r).contains("section 'orders' needs 30s"));
  }
}
