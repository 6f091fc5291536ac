package dev.carillon.schedctl;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.TriggerKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code schedctl apply} with dependency, event and condition triggers. */
class ApplyDependencyTest {
  private static Cli.Env env;
  @TempDir static Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    env = Cli.Env.fresh("schedctl_deps");
    Cli.Result r =
        Cli.run(
            env.vars(),
            "apply",
            "-f",
            write(
                    "seed.yaml",
                    "tasks:\n"
                        + cron("hourly-src", "HOURLY")
                        + cron("daily-src", "DAILY")
                        + "  - id: report\n    handler: noop\n    after: [daily-src]\n")
                .toString());
    assertThat(r.code()).as(r.toString()).isZero();
  }

  @AfterAll
  static void tearDown() {
    env.close();
  }

  private static Path write(String name, String content) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, content);
    return f;
  }

  private static String cron(String id, String window) {
    return "  - id: "
        + id
        + "\n    handler: noop\n    schedule: { cron: \"0 0 * * * ?\", zone: UTC, window: "
        + window
        + " }\n";
  }

  private static List<Map<String, Object>> table() {
    return env.db().dsl().selectFrom(TASK_DEFINITION).orderBy(TASK_DEFINITION.TASK_ID).fetchMaps();
  }

  @Test
  void a_cycle_through_a_stored_task_is_refused_naming_the_cycle() throws Exception {
    List<Map<String, Object>> before = table();
    // daily-src is stored as a cron task; redefining it to wait for 'report' closes the loop.
    Path f =
        write(
            "cycle.yaml",
            "tasks:\n"
                + "  - id: daily-src\n    handler: noop\n    after: [publish]\n"
                + "  - id: publish\n    handler: noop\n    after: [report]\n");
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(2);
    assertThat(r.err())
        .contains("daily-src -> report -> publish -> daily-src")
        .contains("dependencies form a cycle")
        .contains("nothing applied");
    assertThat(table()).isEqualTo(before);
  }

  @Test
  void upstreams_with_different_window_kinds_are_refused() throws Exception {
    List<Map<String, Object>> before = table();
    Path f =
        write(
            "mixed.yaml",
            "tasks:\n  - id: joined\n    handler: noop\n    after: [hourly-src, daily-src]\n");
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(2);
    assertThat(r.err())
        .contains("task 'joined'")
        .contains("hourly-src (HOURLY), daily-src (DAILY)")
        .contains("different window kinds");
    assertThat(table()).isEqualTo(before);
  }

  @Test
  void an_unknown_upstream_is_refused_and_a_downstream_window_must_match() throws Exception {
    Path f =
        write(
            "bad.yaml",
            "tasks:\n"
                + "  - id: orphan\n    handler: noop\n    after: [nope]\n"
                + "  - id: wrong\n    handler: noop\n    after: [hourly-src]\n");
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(2);
    assertThat(r.err())
        .contains("task 'orphan': after[0]='nope': is not a known task")
        .contains("task 'wrong': schedule.window='DAILY': must equal the upstreams' window kind");
  }

  @Test
  void event_and_condition_tasks_are_stored_and_read_back() throws Exception {
    Path f =
        write(
            "kinds.yaml",
            "tasks:\n"
                + "  - id: on-order\n    handler: noop\n"
                + "    event: { topic: orders, key: \"json:orderId\", coalesce: 30s,"
                + " ratePerSecond: 100 }\n"
                + "  - id: when-ready\n    handler: noop\n"
                + "    schedule: { zone: UTC, window: HOURLY }\n"
                + "    condition: { type: file-ready, every: 5m, debounce: 2,"
                + " params: { path: /tmp/x } }\n");
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isZero();
    var event = new dev.carillon.store.TaskStore(env.db().dsl()).find("on-order").orElseThrow();
    assertThat(event.triggerKind()).isEqualTo(TriggerKind.EVENT);
    assertThat(event.trigger())
        .isInstanceOfSatisfying(
            EventTrigger.class,
            e -> {
              assertThat(e.key().text()).isEqualTo("json:orderId");
              assertThat(e.coalesce()).hasSeconds(30);
            });
    var condition =
        new dev.carillon.store.TaskStore(env.db().dsl()).find("when-ready").orElseThrow();
    assertThat(condition.triggerKind()).isEqualTo(TriggerKind.CONDITION);
    assertThat(condition.trigger())
        .isInstanceOfSatisfying(
            ConditionTrigger.class,
            c -> {
              assertThat(c.debounce()).isEqualTo(2);
              assertThat(c.paramsJson()).isEqualTo("{\"path\":\"/tmp/x\"}");
            });
    // Applying the same file again changes nothing.
    Cli.Result again = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(again.out()).contains("unchanged").doesNotContain("updated");
  }
}
