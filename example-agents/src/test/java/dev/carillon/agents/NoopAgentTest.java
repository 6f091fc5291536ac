package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.api.AgentTask;
import dev.carillon.testkit.TestAgentContext;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class NoopAgentTest {

  @Test
  void noop_succeeds_with_its_key_in_the_summary() throws Exception {
    var result = new NoopAgent().run(TestAgentContext.of("{}"));
    assertThat(result.summary()).contains("test-task/2026-11-29").contains("attempt 1");
    assertThat(result.artifact()).isEmpty();
  }

  @Test
  void every_example_agent_is_registered_for_the_service_loader_with_valid_types() {
    var types =
        ServiceLoader.load(AgentTask.class).stream().map(p -> p.get().type()).sorted().toList();
    assertThat(types).containsExactly("digest", "follow-up", "noop", "report", "sleep");
    assertThat(types).allMatch(t -> t.matches(AgentTask.TYPE_PATTERN));
  }
}
