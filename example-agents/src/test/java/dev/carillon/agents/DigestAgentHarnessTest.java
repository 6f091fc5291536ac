package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.testkit.AgentHarness;
import dev.carillon.testkit.RunOutcome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The digest agent in the real worker: what the worker keeps of an oversized digest. */
@Timeout(120)
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
}
