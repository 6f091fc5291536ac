package dev.carillon.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.model.task.TaskRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TaskLabelTest {
  @Test
  void the_first_tasks_up_to_the_limit_keep_their_label_and_the_rest_are_other() {
    TaskLabel l = new TaskLabel(2);
    assertThat(l.of("a")).isEqualTo("a");
    assertThat(l.of("b")).isEqualTo("b");
    assertThat(l.of("c")).isEqualTo(TaskLabel.OTHER);
    assertThat(l.of("a")).isEqualTo("a");
    assertThat(new TaskLabel(0).of("a")).isEqualTo(TaskLabel.OTHER);
  }

  @Test
  void other_can_never_be_a_task_id() {
    assertThat(TaskRules.id(TaskLabel.OTHER)).isPresent();
  }

  @Test
  void sixteen_threads_racing_over_a_hundred_tasks_admit_exactly_the_limit() throws Exception {
    TaskLabel l = new TaskLabel(10);
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<Set<String>>> results = new ArrayList<>();
    for (int t = 0; t < 16; t++) {
      int offset = t;
      results.add(
          pool.submit(
              () -> {
                go.await();
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < 100; i++) {
                  seen.add(l.of("task-" + ((i + offset * 7) % 100)));
                }
                return seen;
              }));
    }
    go.countDown();
    Set<String> labels = new HashSet<>();
    for (Future<Set<String>> f : results) {
      labels.addAll(f.get(30, TimeUnit.SECONDS));
    }
    pool.shutdownNow();
    labels.remove(TaskLabel.OTHER);
    assertThat(labels).hasSize(10);
  }

  @Test
  void the_limit_comes_from_its_key_and_a_bad_one_names_it() {
    assertThat(TaskLabel.from(Config.of(Map.of())).limit()).isEqualTo(TaskLabel.DEFAULT_LIMIT);
    assertThat(TaskLabel.from(Config.of(Map.of(TaskLabel.KEY, "3"))).limit()).isEqualTo(3);
    assertThatThrownBy(() -> TaskLabel.from(Config.of(Map.of(TaskLabel.KEY, "-1"))))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(TaskLabel.KEY);
  }
}
