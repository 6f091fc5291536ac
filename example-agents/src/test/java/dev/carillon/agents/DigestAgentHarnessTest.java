package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.testkit.AgentHarness;
import dev.carillon.testkit.RunOutcome;
import dev.carillon.testkit.TestRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The digest agent in the real worker: what the worker keeps of an oversized digest, and a worker
 * process killed with SIGKILL after posting.
 */
@Timeout(240)
class DigestAgentHarnessTest {
  @TempDir Path artifacts;

  @Test
  void an_oversized_digest_keeps_a_truncated_summary_and_the_full_text_in_the_artifact()
      throws Exception {
    String items =
        IntStream.range(0, 500)
            .mapToObj(n -> "\"headline número " + n + "\"")
            .collect(Collectors.joining(","));
    try (AgentHarness harness = AgentHarness.start(new DigestAgent())) {
      RunOutcome outcome =
          harness.run(
              "digest", "{\"artifactDir\":\"" + artifacts + "\",\"items\":[" + items + "]}");

      assertThat(outcome.succeeded()).as(outcome.toString()).isTrue();
      assertThat(outcome.summaryTruncated()).isTrue();
      String summary = outcome.summary().orElseThrow();
      assertThat(summary.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(4096);
      assertThat(summary).startsWith("# " + outcome.taskId()).doesNotContain("número 499");
      String full = Files.readString(Path.of(outcome.artifact().orElseThrow()));
      assertThat(full).contains("- headline número 0\n").endsWith("- headline número 499\n");
    }
  }

  @Test
  void a_worker_killed_after_posting_is_followed_by_an_attempt_that_resumes_and_does_not_post(
      @TempDir Path channel) throws Exception {
    String items =
        IntStream.range(0, 30)
            .mapToObj(n -> "\"headline " + n + "\"")
            .collect(Collectors.joining(","));
    TestRun run =
        TestRun.of("digest")
            .withParams(
                "{\"artifactDir\":\""
                    + artifacts
                    + "\",\"sink\":\""
                    + channel
                    + "\",\"items\":["
                    + items
                    + "],\"itemDelay\":\"20ms\",\"checkpointEvery\":5,\"holdAfterPost\":\"10m\"}")
            .withTimeout(Duration.ofSeconds(30));

    try (AgentHarness harness = AgentHarness.start(new DigestAgent())) {
      // Killed once the post is recorded: the file in the channel appears before the record.
      RunOutcome killed = harness.runAndKillWorkerAfterEffect(run, DigestAgent.POST);
      assertThat(posts(channel)).as("posts before the kill").isEqualTo(1);

      assertThat(killed.killed()).as(killed.toString()).isTrue();
      assertThat(killed.checkpointOf(1))
          .hasValueSatisfying(
              c -> {
                assertThat(c.stateJson()).startsWith("{\"next\":30,");
                assertThat(c.saves()).isEqualTo(6);
              });
      assertThat(killed.effects())
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.key()).isEqualTo(DigestAgent.POST);
                assertThat(e.done()).isTrue();
              });

      RunOutcome resumed = harness.retry(killed);

      assertThat(resumed.succeeded()).as(resumed.toString()).isTrue();
      assertThat(resumed.attempt()).isEqualTo(2);
      assertThat(posts(channel)).as("posts in the channel").isEqualTo(1);
      assertThat(resumed.checkpointOf(2))
          .as("attempt 2 resumed after item 30: it digested nothing again")
          .isEmpty();
      assertThat(resumed.effects())
          .as("the post recorded by attempt 1 is the only one")
          .singleElement()
          .satisfies(e -> assertThat(e.attempt()).isEqualTo(1));
      assertThat(resumed.summary())
          .hasValueSatisfying(s -> assertThat(s).contains("30 items").contains("- headline 29\n"));
    }
  }

  private static long posts(Path channel) {
    try {
      return DirectorySink.posts(channel);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
