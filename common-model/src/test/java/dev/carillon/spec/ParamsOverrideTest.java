package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskDefinition;
import org.junit.jupiter.api.Test;

class ParamsOverrideTest {
  @Test
  void top_level_fields_replace_the_tasks_and_the_rest_stay() {
    assertThat(
            ParamsOverride.merge(
                "{\"model\":\"m1\",\"user\":\"u-1\",\"opts\":{\"a\":1,\"b\":2}}",
                "{\"user\":\"u-2\",\"opts\":{\"a\":3},\"new\":null}"))
        .isEqualTo("{\"model\":\"m1\",\"user\":\"u-2\",\"opts\":{\"a\":3},\"new\":null}");
  }

  @Test
  void no_override_leaves_the_tasks_params_as_they_are() {
    assertThat(ParamsOverride.merge("{\"a\":1}", null)).isEqualTo("{\"a\":1}");
    assertThat(ParamsOverride.merge(null, "{\"a\":1}")).isEqualTo("{\"a\":1}");
  }

  @Test
  void an_override_must_be_an_object_within_the_size_limit_naming_no_agent_kind_setting() {
    assertThat(ParamsOverride.check("{\"user\":\"u-2\"}")).isEmpty();
    assertThat(ParamsOverride.check("[1]")).extracting(Problem::field).containsExactly("params");
    assertThat(
            ParamsOverride.check("{\"t\":\"" + "x".repeat(TaskDefinition.MAX_PARAMS_BYTES) + "\"}"))
        .singleElement()
        .satisfies(p -> assertThat(p.message()).contains("is larger than"));
    assertThat(ParamsOverride.check("{\"exec\":{\"command\":[\"sh\"]},\"http\":{}}"))
        .extracting(Problem::field)
        .containsExactly("params.exec", "params.http");
  }
}
