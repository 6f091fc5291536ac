package dev.carillon.schedctl;

import static dev.carillon.store.jooq.Tables.TASK_DEFINITION;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ApplyCommandTest {
  private static Cli.Env env;
  @TempDir static Path dir;

  @BeforeAll
  static void setUp() throws Exception {
    env = Cli.Env.fresh("schedctl_apply");
    Path seed = write("seed.yaml", TaskFileTest.EXAMPLE);
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", seed.toString());
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

  /** Every column of every task row, to prove that a refused apply changed nothing. */
  private static List<Map<String, Object>> table() {
    return env.db().dsl().selectFrom(TASK_DEFINITION).orderBy(TASK_DEFINITION.TASK_ID).fetchMaps();
  }

  private static String task(String id, String extra) {
    return "  - id: "
        + id
        + "\n    handler: noop\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
        + extra;
  }

  @Test
  void a_zone_written_as_an_offset_is_applied_with_a_warning_that_it_never_observes_dst()
      throws Exception {
    Path f =
        write(
            "offset.yaml",
            "tasks:\n"
                + "  - id: apply-offset\n    handler: noop\n"
                + "    schedule: { cron: \"0 0 8 * * ?\", zone: \"+08:00\" }\n"
                + task("apply-utc", ""));

    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).containsPattern("apply-offset\\s+created");
    assertThat(r.errLines())
        .containsExactly(
            "warning: task 'apply-offset': schedule.zone '+08:00' is a fixed UTC offset, not a"
                + " region: it never observes daylight saving time; name a region (e.g."
                + " America/New_York) if the task should follow a place's clocks");
    assertThat(
            env.db()
                .dsl()
                .select(TASK_DEFINITION.ZONE)
                .from(TASK_DEFINITION)
                .where(TASK_DEFINITION.TASK_ID.eq("apply-offset"))
                .fetchSingle()
                .value1())
        .isEqualTo("+08:00");
  }

  @Test
  void a_valid_file_creates_then_reports_unchanged_then_updated() throws Exception {
    Path f = write("ok.yaml", "tasks:\n" + task("apply-a", "") + task("apply-b", ""));
    Cli.Result first = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(first.code()).as(first.toString()).isZero();
    assertThat(first.out())
        .containsPattern("apply-a\\s+created")
        .containsPattern("apply-b\\s+created");

    Cli.Result again = Cli.run(env.vars(), "-o", "json", "apply", "-f", f.toString());
    assertThat(again.code()).isZero();
    JsonNode applied = again.json().get("applied");
    assertThat(applied.findValuesAsText("result")).containsExactly("unchanged", "unchanged");

    Files.writeString(f, "tasks:\n" + task("apply-a", "    timeout: 7m\n") + task("apply-b", ""));
    Cli.Result changed = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(changed.out())
        .containsPattern("apply-a\\s+updated")
        .containsPattern("apply-b\\s+unchanged");
    assertThat(
            env.db()
                .dsl()
                .select(TASK_DEFINITION.TIMEOUT_MS, TASK_DEFINITION.VERSION)
                .from(TASK_DEFINITION)
                .where(TASK_DEFINITION.TASK_ID.eq("apply-a"))
                .fetchSingle()
                .intoList())
        .containsExactly(420_000L, 2L);
  }

  static List<Arguments> badFiles() {
    String good = task("daily-digest", "    timeout: 99m\n"); // valid, must not be written either
    return List.of(
        Arguments.of(
            "invalid cron",
            "tasks:\n" + good + task("t1", "").replace("0 0 8 * * ?", "0 0 25 * * ?"),
            List.of("bad.yaml:8:23: task 't1': schedule.cron='0 0 25 * * ?': ")),
        Arguments.of(
            "unknown zone",
            "tasks:\n" + good + task("t1", "").replace("zone: UTC", "zone: Europe/Atlantis"),
            List.of(
                "bad.yaml:8:44: task 't1': schedule.zone='Europe/Atlantis': is not an IANA time"
                    + " zone")),
        Arguments.of(
            "bad task id",
            "tasks:\n" + good + task("Has Spaces", ""),
            List.of("bad.yaml:6:9: task 'Has Spaces': id='Has Spaces': must match")),
        Arguments.of(
            "negative and absurd durations",
            "tasks:\n" + good + task("t1", "    catchup: PT-1H\n    timeout: 3650d\n"),
            List.of(
                "bad.yaml:9:14: task 't1': catchup='PT-1H': must be between 0s and 7d",
                "bad.yaml:10:14: task 't1': timeout='3650d': must be between 1s and 1d")),
        Arguments.of(
            "unknown retry policy",
            "tasks:\n" + good + task("t1", "    retry: { policy: FOREVER }\n"),
            List.of("bad.yaml:9:22: task 't1': retry.policy='FOREVER': must be one of")),
        Arguments.of(
            "10 MB params blob",
            "tasks:\n"
                + good
                + task("t1", "    params: { blob: \"" + "x".repeat(10 * 1024 * 1024) + "\" }\n"),
            List.of("bad.yaml:9:5: task 't1': params='<")),
        Arguments.of(
            "unknown keys",
            "tasks:\n" + good + task("t1", "    retires: 3\n    schedule2: x\n"),
            List.of(
                "bad.yaml:9:5: task 't1': retires='3': unknown key (known: after, at, catchup, condition,"
                    + " event, handler, id,",
                "bad.yaml:10:5: task 't1': schedule2='x': unknown key")),
        Arguments.of(
            "duplicate ids",
            "tasks:\n" + good + task("t1", "") + task("t1", ""),
            List.of(
                "bad.yaml:9:9: task 't1': id='t1': appears more than once in the file (tasks[1] and"
                    + " tasks[2])")),
        Arguments.of(
            "unparsable YAML",
            "tasks:\n" + good + "  - id: t1\n    handler: [noop\n",
            List.of("bad.yaml:7:19: is not valid YAML: ")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void bad_input_exits_2_with_one_line_per_problem_and_changes_no_row(
      String name, String yaml, List<String> expectedLinePrefixes) throws Exception {
    List<Map<String, Object>> before = table();
    Path f = write("bad.yaml", yaml);
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(Schedctl.BAD_INPUT);
    List<String> lines = r.errLines();
    // One line per problem, then one summary line.
    assertThat(lines).hasSize(expectedLinePrefixes.size() + 1);
    for (String prefix : expectedLinePrefixes) {
      assertThat(lines)
          .anySatisfy(l -> assertThat(l).startsWith(prefix.replace("bad.yaml", f.toString())));
    }
    assertThat(lines.get(lines.size() - 1)).startsWith("schedctl: nothing applied:");
    assertThat(r.out()).isEmpty();
    assertThat(table()).isEqualTo(before);
  }

  @Test
  void bad_input_is_refused_before_any_connection_is_tried() throws Exception {
    Path f = write("bad-zone.yaml", "tasks:\n" + task("t1", "").replace("UTC", "Nowhere/City"));
    Cli.Result r =
        Cli.run(
            env.with("CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/none"),
            "apply",
            "-f",
            f.toString());
    assertThat(r.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(r.err()).contains("schedule.zone='Nowhere/City'");
  }

  @Test
  void an_unreachable_database_exits_1_naming_postgresql_and_never_prints_the_password()
      throws Exception {
    Path f = write("fine.yaml", "tasks:\n" + task("never-written", ""));
    Map<String, String> vars =
        env.with("CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/carillon");
    vars.put("CARILLON_DB_PASSWORD", "s3cr3t-pw");
    Cli.Result r = Cli.run(vars, "apply", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(r.errLines())
        .containsExactly(
            "cannot reach PostgreSQL at jdbc:postgresql://127.0.0.1:1/carillon: Connection refused");
    assertThat(r.out() + r.err()).doesNotContain("s3cr3t-pw");

    Cli.Result urlSecret =
        Cli.run(
            env.with(
                "CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/c?password=hunter2&ssl=false"),
            "get",
            "tasks");
    assertThat(urlSecret.code()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(urlSecret.err()).contains("password=****&ssl=false").doesNotContain("hunter2");
  }

  @Test
  void dry_run_validates_without_any_database() throws Exception {
    Path f = write("dry.yaml", TaskFileTest.EXAMPLE);
    Cli.Result r = Cli.run(Map.of(), "apply", "--dry-run", "-f", f.toString());
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("1 task(s) valid");
  }

  @Test
  void a_missing_file_is_bad_input() {
    Cli.Result r = Cli.run(env.vars(), "apply", "-f", dir.resolve("absent.yaml").toString());
    assertThat(r.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(r.err()).contains("absent.yaml: cannot be read");
  }

  @Test
  void get_tasks_lists_what_apply_wrote_as_a_table_and_as_json() {
    Cli.Result table = Cli.run(env.vars(), "get", "tasks");
    assertThat(table.code()).isZero();
    assertThat(table.out())
        .containsPattern(
            "daily-digest\\s+digest\\s+0 0 8 \\* \\* \\? @ Asia/Shanghai\\s+DAILY\\s+SKIP\\s+DELAYED x3\\s+no");
    JsonNode json = Cli.run(env.vars(), "get", "tasks", "-o", "json").json();
    JsonNode digest = null;
    for (JsonNode t : json) {
      if (t.get("id").asText().equals("daily-digest")) {
        digest = t;
      }
    }
    assertThat(digest).isNotNull();
    assertThat(digest.get("timeout").asText()).isEqualTo("20m");
    assertThat(digest.get("params").get("channel").asText()).isEqualTo("#news");
    assertThat(digest.get("retry").get("delays").toString()).isEqualTo("[\"5m\",\"15m\",\"30m\"]");
  }
}
