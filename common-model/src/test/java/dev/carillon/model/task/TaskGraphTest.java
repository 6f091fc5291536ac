package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TaskGraphTest {
  private static TaskDefinition cron(String id, String window) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0 0 * * * ?")
        .zone("UTC")
        .window(window)
        .build();
  }

  private static TaskDefinition after(String id, String... ups) {
    return TaskDefinition.builder(id).handler("noop").after(List.of(ups)).build();
  }

  @Test
  void a_cycle_is_named_once_in_execution_order_from_its_smallest_id() {
    TaskGraph g = TaskGraph.of(List.of(after("c", "b"), after("a", "c"), after("b", "a")));
    assertThat(g.problems())
        .extracting(TaskGraph.GraphProblem::toString)
        .containsExactly("task 'a': after='a -> b -> c -> a': dependencies form a cycle");
  }

  @Test
  void unknown_upstreams_and_mixed_window_kinds_are_problems_of_the_downstream() {
    TaskGraph g =
        TaskGraph.of(
            List.of(cron("h", "HOURLY"), cron("d", "DAILY"), after("x", "h", "d", "nope")));
    assertThat(g.problems())
        .extracting(TaskGraph.GraphProblem::toString)
        .containsExactly(
            "task 'x': after[2]='nope': is not a known task",
            "task 'x': after='h (HOURLY), d (DAILY)': upstreams have different window kinds;"
                + " a window key must mean the same window for every upstream");
  }

  @Test
  void downstreams_are_indexed_by_upstream() {
    TaskGraph g = TaskGraph.of(List.of(cron("a", "DAILY"), after("b", "a"), after("c", "a")));
    assertThat(g.problems()).isEmpty();
    assertThat(g.downstreams("a")).extracting(TaskDefinition::id).containsExactly("b", "c");
    assertThat(g.downstreams("b")).isEmpty();
  }

  @Test
  void the_builder_names_every_trigger_problem() {
    assertThatThrownBy(
            () ->
                TaskDefinition.builder("t")
                    .handler("noop")
                    .after(List.of("t", "u", "u"))
                    .event(Map.of("topic", "bad topic!", "key", "json:", "ratePerSecond", -1))
                    .build())
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("after[0]='t': a task cannot depend on itself")
        .hasMessageContaining("after[2]='u': is listed twice")
        .hasMessageContaining("event.topic='bad topic!'")
        .hasMessageContaining("event.key='json:'")
        .hasMessageContaining("event.ratePerSecond='-1'")
        .hasMessageContaining("a task has exactly one trigger");
    assertThatThrownBy(
            () ->
                TaskDefinition.builder("t")
                    .handler("noop")
                    .condition(Map.of("type", "x", "every", "0s", "debounce", 0))
                    .build())
        .hasMessageContaining("condition.every='0s'")
        .hasMessageContaining("condition.debounce='0'")
        .hasMessageContaining("schedule.zone");
  }
}
