package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.testkit.TestAgentContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DigestAgentTest {
  private final DigestAgent agent = new DigestAgent();

  @TempDir Path dir;

  private String params(String body) {
    return "{\"artifactDir\":\"" + dir.toString().replace("\\", "\\\\") + "\"," + body + "}";
  }

  @Test
  void digests_items_into_a_summary_and_writes_the_same_text_as_the_artifact() throws Exception {
    AgentResult r =
        agent.run(
            TestAgentContext.of(
                params(
                    "\"title\":\"Morning news\",\"items\":[\"Rates rise again\",\"Rates hold in Asia\",\" \"]")));
    assertThat(r.summary())
        .startsWith("# Morning news (2026-11-29)\n2 items, 7 words; most frequent: rates,")
        .contains("- Rates rise again\n- Rates hold in Asia\n");
    Path file = Path.of(r.artifactUri());
    assertThat(file.getFileName().toString()).isEqualTo("test-task_2026-11-29.md");
    assertThat(Files.readString(file)).isEqualTo(r.summary());
  }

  @Test
  void a_source_text_is_split_into_sentences() throws Exception {
    AgentResult r =
        agent.run(
            TestAgentContext.of(params("\"text\":\"First point. Second   point!\\nThird?\"")));
    assertThat(r.summary())
        .contains("3 items")
        .contains("- First point.\n- Second point!\n- Third?\n");
  }

  @Test
  void a_rerun_of_the_same_window_overwrites_its_file_instead_of_adding_one() throws Exception {
    agent.run(TestAgentContext.of(params("\"items\":[\"one\"]")));
    AgentResult second =
        agent.run(
            TestAgentContext.builder().params(params("\"items\":[\"two\"]")).attempt(2).build());
    try (var files = Files.list(dir)) {
      assertThat(files.toList()).containsExactly(Path.of(second.artifactUri()));
    }
    assertThat(Files.readString(Path.of(second.artifactUri())))
        .contains("- two")
        .doesNotContain("- one");
  }

  @Test
  void params_without_items_or_text_are_a_non_retryable_failure() {
    assertThatThrownBy(() -> agent.run(TestAgentContext.of(params("\"title\":\"x\""))))
        .isInstanceOf(NonRetryableException.class)
        .hasMessageContaining("\"items\"");
    assertThatThrownBy(() -> agent.run(TestAgentContext.of(params("\"items\":[1]"))))
        .isInstanceOf(NonRetryableException.class);
  }

  @Test
  void file_names_are_safe_whatever_the_key() {
    assertThat(DigestAgent.fileName("a/b c:d")).isEqualTo("a_b_c_d.md");
  }
}
