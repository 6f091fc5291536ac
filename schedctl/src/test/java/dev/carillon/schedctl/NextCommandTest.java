package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SettableClock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
  void next_needs_the_database_and_says_so_when_it_is_unreachable() {
    Cli.Result r =
        Cli.run(env.with("CARILLON_DB_URL", "jdbc:postgresql://127.0.0.1:1/carillon"), "next", "x");
    assertThat(r.code()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(r.err())
        .startsWith("cannot reach PostgreSQL at jdbc:postgresql://127.0.0.1:1/carillon");
  }
}
