package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.api.RunCancelledException;
import dev.carillon.testkit.TestAgentContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
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

  private String items(int n) {
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(i -> "\"item " + i + "\"")
        .collect(java.util.stream.Collectors.joining(",", "\"items\":[", "]"));
  }

  @Test
  void an_attempt_after_a_crash_resumes_after_the_last_checkpoint_and_drops_later_lines()
      throws Exception {
    String params = params(items(7) + ",\"checkpointEvery\":3");
    AgentResult whole =
        agent.run(TestAgentContext.builder().params(params).windowKey("whole").build());
    TestAgentContext first =
        TestAgentContext.builder().params(params).stopAfterCheckpoints(1).build();

    assertThatThrownBy(() -> agent.run(first)).isInstanceOf(RunCancelledException.class);
    assertThat(first.checkpoints()).containsExactly("{\"next\":3,\"bytes\":27}");
    // A line the crashed attempt wrote after its checkpoint, which the next one must not keep.
    Path partial = dir.resolve(DigestAgent.fileName(first.idempotencyKey()) + ".partial");
    Files.writeString(partial, "- written after the checkpoint\n", StandardOpenOption.APPEND);

    TestAgentContext second = first.retried("the worker died");
    AgentResult resumed = agent.run(second);

    assertThat(second.heartbeats()).first().isEqualTo("resuming at item 3 of 7 (attempt 1)");
    assertThat(second.checkpoints())
        .containsExactly("{\"next\":6,\"bytes\":54}", "{\"next\":7,\"bytes\":63}");
    assertThat(resumed.summary())
        .isEqualTo(whole.summary().replace("(whole)", "(" + second.windowKey() + ")"))
        .doesNotContain("written after the checkpoint");
    assertThat(Files.exists(partial)).as("the partial digest is removed at the end").isFalse();
  }

  @Test
  void a_checkpoint_that_does_not_match_the_partial_file_here_starts_over() throws Exception {
    TestAgentContext elsewhere =
        TestAgentContext.builder()
            .params(params(items(4)))
            .attempt(2)
            .lastCheckpoint("{\"next\":3,\"bytes\":27}", 1, Instant.parse("2026-11-29T08:01:00Z"))
            .build();

    AgentResult r = agent.run(elsewhere);

    assertThat(elsewhere.heartbeats())
        .first()
        .isEqualTo(
            "the checkpoint of attempt 1 does not match the partial digest here; starting over");
    assertThat(r.summary()).contains("- item 0\n- item 1\n- item 2\n- item 3\n");
  }

  @Test
  void the_digest_is_posted_once_even_when_the_run_dies_right_after_posting() throws Exception {
    Path sink = dir.resolve("channel");
    String params = params(items(5) + ",\"sink\":\"" + sink + "\"");
    TestAgentContext first =
        TestAgentContext.builder().params(params).stopAfterEffect(DigestAgent.POST).build();

    assertThatThrownBy(() -> agent.run(first)).isInstanceOf(RunCancelledException.class);
    assertThat(DirectorySink.posts(sink)).isEqualTo(1);
    TestAgentContext second = first.retried("the worker died");
    AgentResult r = agent.run(second);

    assertThat(DirectorySink.posts(sink)).as("posts in the channel").isEqualTo(1);
    assertThat(second.effectRuns(DigestAgent.POST)).isZero();
    assertThat(second.heartbeats()).first().isEqualTo("resuming at item 5 of 5 (attempt 1)");
    assertThat(second.checkpoints()).as("no item digested again").isEmpty();
    try (var posts = Files.list(sink)) {
      Path post = posts.findFirst().orElseThrow();
      assertThat(Files.readString(post))
          .startsWith("Idempotency-Key: test-task/2026-11-29/post-digest\n\n")
          .endsWith(r.summary());
      assertThat(second.effectResult(DigestAgent.POST)).hasValue(post.getFileName().toString());
    }
  }

  @Test
  void a_run_that_dies_between_the_post_and_its_record_posts_again_in_doubt_with_the_same_key()
      throws Exception {
    // The gap once cannot close alone: this sink ignores the idempotency key; a real channel that
    // honours it would drop the second post.
    Path sink = dir.resolve("channel");
    String params = params(items(2) + ",\"sink\":\"" + sink + "\"");
    TestAgentContext first =
        TestAgentContext.builder().params(params).stopBeforeRecording(DigestAgent.POST).build();
    assertThatThrownBy(() -> agent.run(first)).isInstanceOf(RunCancelledException.class);

    agent.run(first.retried("the worker died"));

    try (var posts = Files.list(sink)) {
      assertThat(posts.map(DigestAgentTest::firstLine).toList())
          .containsExactly(
              "Idempotency-Key: test-task/2026-11-29/post-digest",
              "Idempotency-Key: test-task/2026-11-29/post-digest");
    }
  }

  private static String firstLine(Path file) {
    try {
      return Files.readAllLines(file).get(0);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
