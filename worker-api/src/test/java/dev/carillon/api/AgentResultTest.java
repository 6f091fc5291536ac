package dev.carillon.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;

class AgentResultTest {

  @Test
  void a_result_with_only_a_summary_has_no_artifact() {
    AgentResult result = AgentResult.of("3 articles summarised");

    assertThat(result.summary()).isEqualTo("3 articles summarised");
    assertThat(result.artifactUri()).isNull();
    assertThat(result.artifact()).isEmpty();
  }

  @Test
  void a_result_with_an_artifact_exposes_it_as_uri_and_as_optional() {
    URI uri = URI.create("s3://digests/2026-11-29.md");

    AgentResult result = AgentResult.of("digest ready", uri);

    assertThat(result.artifactUri()).isEqualTo(uri);
    assertThat(result.artifact()).contains(uri);
    assertThat(result).isEqualTo(new AgentResult("digest ready", uri));
  }

  @Test
  void an_empty_summary_is_allowed_but_a_missing_one_is_not() {
    assertThat(AgentResult.of("").summary()).isEmpty();
    assertThatThrownBy(() -> AgentResult.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("summary");
  }

  @Test
  void a_relative_artifact_uri_is_refused_with_the_value_in_the_message() {
    assertThatThrownBy(() -> AgentResult.of("x", URI.create("digests/today.md")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("artifactUri")
        .hasMessageContaining("digests/today.md");
  }

  @Test
  void the_two_argument_factory_requires_an_artifact() {
    assertThatThrownBy(() -> AgentResult.of("x", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessageContaining("artifactUri");
  }

  @Test
  void the_default_summary_limit_is_four_kibibytes() {
    assertThat(AgentResult.DEFAULT_MAX_SUMMARY_BYTES).isEqualTo(4096);
  }
}
