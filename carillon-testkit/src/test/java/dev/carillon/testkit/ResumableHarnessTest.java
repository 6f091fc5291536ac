package dev.carillon.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The harness's crash and retry steps, with a worker process killed by SIGKILL. */
@Timeout(180)
class ResumableHarnessTest {
  static AgentHarness harness;

  @TempDir Path sink;

  @BeforeAll
  static void start() {
    harness = AgentHarness.start(new StepsAgent());
  }

  @AfterAll
  static void stop() {
    harness.close();
  }

  private long posts() {
    try (Stream<Path> files = Files.list(sink)) {
      return files.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void a_worker_killed_after_the_post_is_followed_by_an_attempt_that_resumes_and_does_not_post() {
    TestRun run =
        TestRun.of("steps")
            .withParams("{\"steps\":4,\"sink\":\"" + sink + "\",\"holdAfterPostMs\":600000}")
            .withTimeout(Duration.ofSeconds(20));

    // Killed once the post is recorded: the file in the sink appears before the record commits.
    RunOutcome killed = harness.runAndKillWorkerAfterEffect(run, "post");
    assertThat(posts()).as("posts before the kill").isEqualTo(1);

    assertThat(killed.killed()).as(killed.toString()).isTrue();
    assertThat(killed.attempt()).isEqualTo(1);
    assertThat(killed.checkpointOf(1))
        .hasValueSatisfying(c -> assertThat(c.stateJson()).isEqualTo("{\"next\":4}"));
    assertThat(killed.effects())
        .singleElement()
        .satisfies(e -> assertThat(e.done()).as("the post was recorded before the kill").isTrue());

    RunOutcome resumed = harness.retry(killed);

    assertThat(resumed.succeeded()).as(resumed.toString()).isTrue();
    assertThat(resumed.attempt()).isEqualTo(2);
    assertThat(resumed.summary())
        .hasValueSatisfying(s -> assertThat(s).startsWith("resumed at 4, posted post-"));
    assertThat(posts()).as("posts in the sink").isEqualTo(1);
    assertThat(resumed.events())
        .extracting(e -> e.from().orElse("-") + ">" + e.to())
        .containsExactly(
            "->PENDING",
            "PENDING>RUNNING",
            "RUNNING>TIMEOUT",
            "TIMEOUT>RETRY_WAIT",
            "RETRY_WAIT>PENDING",
            "PENDING>RUNNING",
            "RUNNING>SUCCESS");
  }

  @Test
  void a_failed_run_is_retried_with_its_checkpoints() {
    TestRun run = TestRun.of("steps").withParams("{\"steps\":2}");

    RunOutcome failed = harness.run(run);
    assertThat(failed.failedRetryably()).as(failed.toString()).isTrue();
    assertThat(failed.checkpointOf(1)).hasValueSatisfying(c -> assertThat(c.saves()).isEqualTo(2));

    RunOutcome again = harness.retry(failed);
    assertThat(again.attempt()).isEqualTo(2);
    assertThat(again.failReason())
        .as("resumed after its steps, it fails at the same place: no sink")
        .hasValueSatisfying(r -> assertThat(r).contains("'sink' is missing"));
    assertThat(again.checkpoints()).extracting(RunCheckpoint::attempt).containsExactly(1);
  }
}
