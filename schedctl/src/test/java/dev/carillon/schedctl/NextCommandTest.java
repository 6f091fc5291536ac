package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SettableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NextCommandTest {
  private static Cli.Env env;

  @BeforeAll
  static void setUp() {
    env = Cli.Env.fresh("schedctl_next");
    new TaskStore(env.db().dsl())
        .applyAll(
            List.of(
                dev.carillon.model.task.TaskDefinition.builder("ny-0230")
                    .handler("noop")
                    .cron("0 30 2 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
                    .build(),
                dev.carillon.model.task.TaskDefinition.builder("ny-0130")
                    .handler("noop")
                    .cron("0 30 1 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
                    .build(),
                dev.carillon.model.task.TaskDefinition.builder("ny-half-hourly")
                    .handler("noop")
                    .cron("0 0/30 * * * ?", ZoneId.of("America/New_York"), WindowKind.HOURLY)
                    .build()));
  }

  @AfterAll
  static void tearDown() {
    env.close();
  }

  private static Schedctl at(String instant) {
    return Cli.at(new SettableClock(Instant.parse(instant)));
  }

  @Test
  void a_fire_time_in_the_spring_forward_gap_is_flagged_as_shifted_in_zone_and_utc() {
    Cli.Result r =
        Cli.run(at("2026-03-07T12:00:00Z"), env.vars(), "next", "ny-0230", "--count", "2");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .containsPattern(
            "1\\s+2026-03-08T03:00:00-04:00\\s+2026-03-08T07:00:00Z\\s+2026-03-08\\s+SHIFTED: 02:30"
                + " does not exist on 2026-03-08")
        .containsPattern(
            "2\\s+2026-03-09T02:30:00-04:00\\s+2026-03-09T06:30:00Z\\s+2026-03-09\\s+-\\n");

    JsonNode json =
        Cli.run(
                at("2026-03-07T12:00:00Z"),
                env.vars(),
                "next",
                "ny-0230",
                "--count",
                "2",
                "-o",
                "json")
            .json();
    assertThat(json.get("fires").get(0).get("adjustment").asText()).isEqualTo("SHIFTED_OUT_OF_GAP");
    assertThat(json.get("fires").get(0).get("utc").asText()).isEqualTo("2026-03-08T07:00:00Z");
    assertThat(json.get("fires").get(1).get("adjustment").asText()).isEqualTo("NONE");
  }

  @Test
  void the_repeated_fall_back_hour_is_flagged_and_an_hourly_schedule_fires_in_both() {
    Cli.Result daily =
        Cli.run(at("2026-10-31T12:00:00Z"), env.vars(), "next", "ny-0130", "--count", "1");
    assertThat(daily.out())
        .containsPattern(
            "2026-11-01T01:30:00-04:00\\s+2026-11-01T05:30:00Z\\s+2026-11-01\\s+REPEATED HOUR");

    JsonNode hourly =
        Cli.run(
                at("2026-11-01T04:50:00Z"),
                env.vars(),
                "-o",
                "json",
                "next",
                "ny-half-hourly",
                "--count",
                "4")
            .json()
            .get("fires");
    assertThat(hourly.findValuesAsText("local"))
        .containsExactly(
            "2026-11-01T01:00:00-04:00",
            "2026-11-01T01:30:00-04:00",
            "2026-11-01T01:00:00-05:00",
            "2026-11-01T01:30:00-05:00");
    assertThat(hourly.findValuesAsText("adjustment"))
        .containsExactly(
            "FIRST_OF_REPEATED", "FIRST_OF_REPEATED", "SECOND_OF_REPEATED", "SECOND_OF_REPEATED");
    assertThat(hourly.findValuesAsText("window"))
        .containsExactly(
            "2026-11-01T01-04:00",
            "2026-11-01T01-04:00",
            "2026-11-01T01-05:00",
            "2026-11-01T01-05:00");
  }

  @Test
  void a_one_shot_is_applied_listed_and_shown_with_its_one_fire_then_none_and_a_late_one_refused(
      @TempDir Path dir) throws IOException {
    Path f = dir.resolve("once.yaml");
    Files.writeString(
        f,
        """
        tasks:
          - id: remind-once
            handler: noop
            at: 2026-12-24T09:00:00+01:00
            schedule: { zone: Europe/Berlin }
        """);
    Cli.Result applied =
        Cli.run(at("2026-12-01T00:00:00Z"), env.vars(), "apply", "-f", f.toString());
    assertThat(applied.code()).as(applied.toString()).isZero();

    Cli.Result listed = Cli.run(at("2026-12-01T00:00:00Z"), env.vars(), "get", "tasks");
    assertThat(listed.out()).containsPattern("remind-once\\s+noop\\s+at 2026-12-24T08:00:00Z");
    Cli.Result before = Cli.run(at("2026-12-01T00:00:00Z"), env.vars(), "next", "remind-once");
    assertThat(before.code()).as(before.toString()).isZero();
    assertThat(before.out())
        .contains(
            "Task 'remind-once': once at 2026-12-24T08:00:00Z (2026-12-24T09:00 in Europe/Berlin):")
        .containsPattern(
            "1\\s+2026-12-24T09:00:00\\+01:00\\s+2026-12-24T08:00:00Z\\s+2026-12-24T08:00:00Z");
    Cli.Result after = Cli.run(at("2026-12-24T08:00:00Z"), env.vars(), "next", "remind-once");
    assertThat(after.code()).as(after.toString()).isZero();
    assertThat(after.out()).contains("A one-shot whose instant has passed: it never fires again.");

    // The same file applied again after the instant (a deploy re-applying everything) is
    // unchanged; another one-shot already beyond its catch-up window is refused, nothing applied.
    Cli.Result again = Cli.run(at("2026-12-25T00:00:00Z"), env.vars(), "apply", "-f", f.toString());
    assertThat(again.code()).as(again.toString()).isZero();
    Files.writeString(
        f,
        """
        tasks:
          - id: remind-late
            handler: noop
            at: 2026-12-24T09:00:00+01:00
        """);
    Cli.Result dry =
        Cli.run(at("2026-12-25T00:00:00Z"), env.vars(), "apply", "--dry-run", "-f", f.toString());
    assertThat(dry.code()).as("a dry run has no database to tell: it warns").isZero();
    assertThat(dry.err())
        .contains("warning: task 'remind-late': at='2026-12-24T08:00:00Z': is 16h before now")
        .contains("an apply refuses it unless that instant is already stored");
    Cli.Result late = Cli.run(at("2026-12-25T00:00:00Z"), env.vars(), "apply", "-f", f.toString());
    assertThat(late.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(late.err())
        .contains(
            "task 'remind-late': at='2026-12-24T08:00:00Z': is 16h before now"
                + " (2026-12-25T00:00:00Z), beyond the task's catch-up window (1h)")
        .contains("nothing applied");
    assertThat(new TaskStore(env.db().dsl()).load("remind-late")).isEmpty();
  }

  @Test
  void unknown_tasks_and_absurd_counts_are_bad_input() {
    Cli.Result ghost = Cli.run(env.vars(), "next", "ghost");
    assertThat(ghost.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(ghost.err()).contains("no task 'ghost'");
    assertThat(Cli.run(env.vars(), "next", "ny-0230", "--count", "0").code())
        .isEqualTo(Schedctl.BAD_INPUT);
    assertThat(Cli.run(env.vars(), "next", "ny-0230", "--count", "lots").code())
        .isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void an_expression_and_zone_are_previewed_without_a_task_or_a_database() {
    // No database settings at all: a preview must not try to connect.
    Cli.Result r =
        Cli.run(
            at("2026-03-07T12:00:00Z"),
            Map.of(),
            "next",
            "--cron",
            "0 30 2 * * ?",
            "--zone",
            "America/New_York",
            "--count",
            "2");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Preview: 0 30 2 * * ? in America/New_York, DAILY windows (not a task):")
        .containsPattern(
            "1\\s+2026-03-08T03:00:00-04:00\\s+2026-03-08T07:00:00Z\\s+2026-03-08\\s+SHIFTED")
        .containsPattern("2\\s+2026-03-09T02:30:00-04:00\\s+2026-03-09T06:30:00Z\\s+2026-03-09");
    assertThat(r.err()).isEmpty();
  }

  @Test
  void a_preview_shows_the_nuuk_gap_that_ends_the_day_and_the_hourly_windows_asked_for() {
    JsonNode json =
        Cli.run(
                at("2026-03-28T12:00:00Z"),
                Map.of(),
                "-o",
                "json",
                "next",
                "--cron",
                "0 30 23 * * ?",
                "--zone",
                "America/Nuuk",
                "--window",
                "hourly",
                "--count",
                "2")
            .json();

    assertThat(json.get("task").isNull()).isTrue();
    assertThat(json.get("fires").findValuesAsText("local"))
        .containsExactly("2026-03-28T22:59:59-02:00", "2026-03-29T23:30:00-01:00");
    assertThat(json.get("fires").findValuesAsText("window"))
        .containsExactly("2026-03-28T22-02:00", "2026-03-29T23-01:00");
    assertThat(json.get("fires").get(0).get("note").asText())
        .isEqualTo(
            "SHIFTED: 23:30 does not exist on 2026-03-28 (clocks spring forward); fires at 22:59:59"
                + " instead");
  }

  @Test
  void a_fixed_offset_zone_is_previewed_with_a_warning_that_it_never_observes_dst() {
    Cli.Result r =
        Cli.run(
            at("2026-07-01T00:00:00Z"),
            Map.of(),
            "next",
            "--cron",
            "0 0 8 * * ?",
            "--zone",
            "-05:00");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("2026-07-01T08:00:00-05:00  2026-07-01T13:00:00Z");
    assertThat(r.err())
        .startsWith(
            "warning: --zone '-05:00' is a fixed UTC offset, not a region: it never observes"
                + " daylight saving time");
  }

  @Test
  void a_bad_preview_names_the_option_and_the_value_and_exits_2() {
    Cli.Result cron =
        Cli.run(Map.of(), "next", "--cron", "0 61 * * * ?", "--zone", "America/New_York");
    assertThat(cron.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(cron.err()).startsWith("--cron '0 61 * * * ?': is not a valid Quartz cron");

    Cli.Result zone = Cli.run(Map.of(), "next", "--cron", "0 0 8 * * ?", "--zone", "Mars/Olympus");
    assertThat(zone.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(zone.err()).startsWith("--zone 'Mars/Olympus': is not an IANA time zone");

    Cli.Result noZone = Cli.run(Map.of(), "next", "--cron", "0 0 8 * * ?");
    assertThat(noZone.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(noZone.err()).startsWith("--zone <missing>: is required");

    Cli.Result window =
        Cli.run(Map.of(), "next", "--cron", "0 0 8 * * ?", "--zone", "UTC", "--window", "YEARLY");
    assertThat(window.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(window.err()).startsWith("--window 'YEARLY': must be DAILY, HOURLY");

    Cli.Result neither = Cli.run(Map.of(), "next");
    assertThat(neither.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(neither.err()).startsWith("give a TASK, or --cron with --zone");

    Cli.Result both = Cli.run(env.vars(), "next", "ny-0230", "--zone", "UTC");
    assertThat(both.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(both.err()).startsWith("--cron, --zone and --window preview an expression");
  }

  @Test
  void next_needs_the_database_and_says_so_when_it_is_unreachable() {
    Cli.Result r =
        Cli.run(env.with("CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/carillon"), "next", "x");
    assertThat(r.code()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(r.err())
        .startsWith("cannot reach PostgreSQL at jdbc:postgresql://127.0.0.1:1/carillon");
  }
}
