package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.OperatorStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * schedctl over the control-plane API: the commands reach only the API (their environment names no
 * database), API errors become exit codes with the problem's field and value, and the new verbs
 * (run, delete task, describe task, get instance, -o yaml, --watch) work end to end.
 */
@ExtendWith(DevStackExtension.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ApiModeTest {
  private static ApiEnv api;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    api = ApiEnv.start("cli_api");
  }

  @AfterAll
  static void stop() throws IOException {
    api.close();
  }

  private static Cli.Result run(String... args) {
    return Cli.run(api.apiOnly(api.token), args);
  }

  private static Path file(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  @Test
  void apply_describe_pause_run_and_delete_go_through_the_api_as_its_caller() throws IOException {
    Path tasks =
        file(
            "tasks.yaml",
            "tasks:\n"
                + "  - id: cli-digest\n"
                + "    handler: noop\n"
                + "    schedule: { cron: \"0 0 8 * * ?\", zone: Europe/Berlin, window: DAILY }\n"
                + "    params: { user: u-1, lang: en }\n");
    Cli.Result applied = run("apply", "-f", tasks.toString());
    assertThat(applied.code()).as(applied.toString()).isZero();
    assertThat(applied.out()).contains("cli-digest").contains("created");

    Cli.Result described = run("describe", "task", "cli-digest");
    assertThat(described.code()).as(described.toString()).isZero();
    assertThat(described.out())
        .contains("cron 0 0 8 * * ? in Europe/Berlin")
        .containsPattern(
            "next fire: +20\\d\\d-\\d\\d-\\d\\dT0[67]:00:00Z  \\(20\\d\\d-\\d\\d-\\d\\dT08:00:00\\+0[12]:00");

    assertThat(run("pause", "cli-digest").out()).contains("is now paused");
    assertThat(run("get", "tasks").out()).containsPattern("cli-digest +noop .* yes");
    assertThat(run("resume", "cli-digest").out()).contains("is now active");

    Cli.Result ran =
        run(
            "run",
            "cli-digest",
            "--param",
            "user=u-2",
            "--param",
            "limit=3",
            "--idempotency-key",
            "k-1");
    assertThat(ran.code()).as(ran.toString()).isZero();
    assertThat(ran.out()).startsWith("created instance ");
    Cli.Result again =
        run(
            "run",
            "cli-digest",
            "--param",
            "user=u-2",
            "--param",
            "limit=3",
            "--idempotency-key",
            "k-1",
            "-o",
            "json");
    JsonNode result = again.json();
    assertThat(result.get("created").asBoolean()).isFalse();
    long id = result.get("instance").get("id").asLong();
    assertThat(result.get("instance").get("paramsOverride").toString())
        .isEqualTo("{\"user\":\"u-2\",\"limit\":3}");

    Cli.Result one = run("get", "instance", Long.toString(id));
    assertThat(one.code()).as(one.toString()).isZero();
    assertThat(one.out())
        .contains("params override:")
        .contains("{\"user\":\"u-2\",\"limit\":3}")
        .contains("(zone Europe/Berlin)");
    Cli.Result yaml = run("get", "instance", Long.toString(id), "-o", "yaml");
    assertThat(yaml.out()).contains("taskId: cli-digest").contains("origin: MANUAL");

    Cli.Result events = run("describe", "instance", Long.toString(id));
    assertThat(events.out())
        .contains("Events:")
        .contains("by api:cli-admin")
        .as("each event also on the task's clock (Berlin: +01:00 or +02:00)")
        .containsPattern("AT\\s+LOCAL\\s+EVENT")
        .containsPattern("\\S+Z +\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\+0[12]:00 +created");

    Cli.Result backfill =
        run("backfill", "cli-digest", "--from", "2026-03-28", "--to", "2026-03-30", "--dry-run");
    assertThat(backfill.code()).as(backfill.toString()).isZero();
    assertThat(backfill.out())
        .as("Berlin's clocks went forward on 2026-03-29")
        .contains(
            "2 window(s) in [2026-03-27T23:00:00Z, 2026-03-29T22:00:00Z)"
                + " (local [2026-03-28T00:00:00+01:00, 2026-03-30T00:00:00+02:00));"
                + " nothing written (dry run)");

    // Live instance: the delete is refused, naming the field; then cancelled with it.
    Cli.Result refused = run("delete", "task", "cli-digest");
    assertThat(refused.code()).as(refused.toString()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(refused.errLines()).anyMatch(l -> l.startsWith("  live='refuse': "));
    Cli.Result deleted = run("delete", "task", "cli-digest", "--cancel-live", "--reason", "gone");
    assertThat(deleted.code()).as(deleted.toString()).isZero();
    assertThat(deleted.out()).contains("cancelled instances [" + id + "]");
    Instance cancelled = new OperatorStore(api.db.db().dsl()).find(id).orElseThrow();
    assertThat(cancelled.status().name()).isEqualTo("CANCELLED");
  }

  @Test
  void a_refused_spec_is_exit_2_with_the_problems_field_and_value_and_nothing_applied()
      throws IOException {
    Path bad =
        file(
            "bad.yaml",
            "tasks:\n  - id: cli-bad\n    handler: noop\n    schedule: { cron: \"0 8 * * *\", zone: UTC }\n");
    Cli.Result r = run("apply", "-f", bad.toString());
    assertThat(r.code()).as(r.toString()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(r.err())
        .contains("schedule.cron")
        .contains("0 8 * * *")
        .contains("write '0 0 8 * * ?'");
    assertThat(run("describe", "task", "cli-bad").code()).isEqualTo(Schedctl.BAD_INPUT);

    Cli.Result forbidden = Cli.run(api.apiOnly(api.viewerToken), "pause", "cli-bad");
    assertThat(forbidden.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(forbidden.err()).contains("answered 403");
    Cli.Result unknown = Cli.run(api.apiOnly("crl_not-a-token"), "get", "tasks");
    assertThat(unknown.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(unknown.err()).contains("answered 401").contains("CARILLON_API_TOKEN");
  }

  @Test
  void an_api_that_cannot_be_reached_is_exit_1_naming_it() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Cli.Result r = Cli.run(Map.of(), "--server", "http://127.0.0.1:" + port, "get", "tasks");
    assertThat(r.code()).as(r.toString()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(r.err()).contains("cannot reach the Carillon API at http://127.0.0.1:" + port);
  }

  @Test
  void config_get_shows_the_value_in_force_and_apart_the_refused_records() {
    Cli.Result set =
        run("config", "set", "retry/cli-config", "{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}");
    assertThat(set.code()).as(set.toString()).isZero();
    Cli.Result bad = run("config", "set", "retry/cli-config", "{\"policy\":\"NEVER\"}");
    assertThat(bad.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(bad.err()).contains("retry.policy='NEVER'");
    Cli.Result got = run("config", "get", "retry/cli-config");
    assertThat(got.code()).as(got.toString()).isZero();
    assertThat(got.out())
        .contains("retry/cli-config")
        .contains("IMMEDIATE")
        .contains("api:cli-admin");
    assertThat(run("config", "unset", "retry/cli-config").out()).contains("unset");
    assertThat(run("config", "get", "retry/cli-config").out()).contains("is not set");
  }

  @Test
  void a_one_shot_is_applied_described_and_shown_next_through_the_api() throws IOException {
    String at =
        java.time.Instant.now()
            .plus(java.time.Duration.ofDays(3))
            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
            .toString();
    Path tasks =
        file("once.yaml", "tasks:\n  - id: cli-once\n    handler: noop\n    at: \"" + at + "\"\n");
    Cli.Result applied = run("apply", "-f", tasks.toString());
    assertThat(applied.code()).as(applied.toString()).isZero();

    assertThat(run("describe", "task", "cli-once").out())
        .contains("once at " + at)
        .containsPattern("next fire: +" + java.util.regex.Pattern.quote(at));
    assertThat(run("get", "tasks").out()).containsPattern("cli-once +noop +once at ");
    Cli.Result next = run("next", "cli-once");
    assertThat(next.code()).as(next.toString()).isZero();
    assertThat(next.out()).contains("cli-once: once at " + at).contains(at);

    Cli.Result late =
        run(
            "apply",
            "-f",
            file(
                    "late.yaml",
                    "tasks:\n  - id: cli-late\n    handler: noop\n    at: \"2020-01-01T00:00:00Z\"\n")
                .toString());
    assertThat(late.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(late.err()).contains("at='2020-01-01T00:00:00Z'").contains("would never run");
  }

  @Test
  void next_previews_an_expression_and_a_five_field_cron_gets_the_seconds_hint() {
    Cli.Result ok = run("next", "--cron", "0 0 8 * * ?", "--zone", "Europe/Berlin", "--count", "2");
    assertThat(ok.code()).as(ok.toString()).isZero();
    assertThat(ok.out()).contains("08:00:00+0");
    Cli.Result five = run("next", "--cron", "0 8 * * *");
    assertThat(five.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(five.err()).contains("cron='0 8 * * *'").contains("starts with a seconds field");
  }

  @Test
  void watch_redraws_only_on_change_and_ends_at_its_bound() {
    // A clock that moves 1s per sleep: the watch polls at t=0..3 and ends at --watch-for 3s.
    MovingClock clock = new MovingClock(Instant.parse("2026-03-29T12:00:00Z"));
    Schedctl cli = new Schedctl(clock, d -> clock.advance(d));
    Cli.Result r =
        Cli.run(
            cli,
            api.apiOnly(api.token),
            "get",
            "instances",
            "--task",
            "cli-watch",
            "--watch",
            "--interval",
            "1s",
            "--watch-for",
            "3s");
    assertThat(r.code()).as(r.toString()).isZero();
    // Nothing changed: drawn once, not four times.
    assertThat(r.out().split("Every PT1S", -1)).hasSize(2);
  }

  /** A clock the watch's sleeper moves: no real waiting. */
  static final class MovingClock extends Clock {
    private volatile Instant now;

    MovingClock(Instant start) {
      now = start;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return now;
    }
  }
}
