package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.WindowKind;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaskGraphTest {
  private static TaskDefinition cron(String id, String window) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0 0 * * * ?", ZoneOffset.UTC, WindowKind.valueOf(window))
        .build();
  }

  private static TaskDefinition after(String id, String... ups) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .trigger(new DependencyTrigger(List.of(ups), WindowKind.DAILY, ZoneOffset.UTC))
        .build();
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
}
