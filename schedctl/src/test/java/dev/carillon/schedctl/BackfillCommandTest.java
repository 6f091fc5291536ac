package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BackfillCommandTest {
  private static final Instant NOW = Instant.parse("2026-01-20T12:00:00Z");
  private static Cli.Env env;
  private static OperatorStore instances;

  @BeforeAll
  static void setUp() {
    Cli.ensureTopics();
    env = Cli.Env.fresh("schedctl_backfill");
    instances = new OperatorStore(env.db().dsl());
    new TaskStore(env.db().dsl())
        .applyAll(
            List.of(
                Tasks.daily("bf-a").build(),
                Tasks.daily("bf-b").build(),
                TaskDefinition.builder("bf-minutely")
                    .handler("noop")
                    .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
                    .build()));
  }

  @AfterAll
  static void tearDown() {
    env.close();
  }

  /** A clock that only moves when the command sleeps, and the sleeps it asked for. */
  private record Paced(Schedctl cli, List<Duration> sleeps) {
    static Paced at(Instant now) {
      SettableClock clock = new SettableClock(now);
      List<Duration> sleeps = new ArrayList<>();
      return new Paced(
          new Schedctl(
              clock,
              d -> {
                sleeps.add(d);
                clock.advance(d);
              }),
          sleeps);
    }
  }

  @Test
  void creates_only_the_missing_windows_at_the_given_rate_and_publishes_them() {
    Instance existing =
        new WindowStore(env.db().dsl())
            .create(List.of(Tasks.pending("bf-a", "2026-01-03", Duration.ofMinutes(5))), "trigger")
            .get(0);
    assertThat(instances.cancel(existing, "test", "x")).isPresent();
    Instance before = instances.find(existing.id()).orElseThrow();
    int eventsBefore = instances.events(existing.id()).size();

    Paced paced = Paced.at(NOW);
    Cli.Result r =
        Cli.run(
            paced.cli(),
            env.vars(),
            "backfill",
            "bf-a",
            "--from",
            "2026-01-01",
            "--to",
            "2026-01-06",
            "--rate",
            "2");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains(
            "task 'bf-a' [2026-01-01T00:00:00Z, 2026-01-06T00:00:00Z)"
                + " (local [2026-01-01T00:00:00+00:00, 2026-01-06T00:00:00+00:00)): ")
        .contains("5 window(s), 4 created, 1 existed already (untouched), 4 published");
    // 2 per second: 2 rows at once, the next 2 after 1s (one of them existed), the last at 1.5s.
    assertThat(paced.sleeps()).containsExactly(Duration.ofSeconds(1), Duration.ofMillis(500));

    List<Instance> rows = instances.list("bf-a", null, null, 100);
    assertThat(rows)
        .extracting(Instance::windowKey)
        .containsExactlyInAnyOrder(
            "2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05");
    assertThat(rows.stream().filter(i -> i.id() != existing.id()))
        .allSatisfy(
            i -> {
              assertThat(i.origin()).isEqualTo(Origin.BACKFILL);
              assertThat(i.status()).isEqualTo(InstanceStatus.PENDING);
              assertThat(i.scheduledAt()).isEqualTo(Instant.parse(i.windowKey() + "T08:00:00Z"));
              assertThat(i.dispatchedAt()).isNotNull();
            });
    assertThat(instances.find(existing.id()).orElseThrow()).isEqualTo(before);
    assertThat(instances.events(existing.id())).hasSize(eventsBefore);

    Set<Long> created =
        rows.stream()
            .filter(i -> i.id() != existing.id())
            .map(Instance::id)
            .collect(Collectors.toSet());
    assertThat(KafkaProbe.instanceMessages().stream().map(InstanceMessage::instanceId))
        .containsAll(created);

    Cli.Result again =
        Cli.run(
            Paced.at(NOW).cli(),
            env.vars(),
            "-o",
            "json",
            "backfill",
            "bf-a",
            "--from",
            "2026-01-01",
            "--to",
            "2026-01-06");
    JsonNode j = again.json();
    assertThat(j.get("created").asInt()).isZero();
    assertThat(j.get("existed").asInt()).isEqualTo(5);
  }

  @Test
  void dry_run_lists_the_windows_and_writes_nothing() {
    Cli.Result r =
        Cli.run(
            Paced.at(NOW).cli(),
            env.vars(),
            "backfill",
            "bf-b",
            "--from",
            "2026-01-10T00:00:00Z",
            "--to",
            "2026-01-12",
            "--dry-run");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("2026-01-10  scheduled 2026-01-10T08:00:00Z")
        .contains("2026-01-11");
    assertThat(instances.list("bf-b", null, null, 10)).isEmpty();
  }

  @Test
  void bad_ranges_rates_and_tasks_exit_2_and_create_nothing() {
    Schedctl cli = Paced.at(NOW).cli();
    assertThat(
            Cli.run(
                    cli,
                    env.vars(),
                    "backfill",
                    "bf-b",
                    "--from",
                    "2026-01-01",
                    "--to",
                    "2026-02-01")
                .err())
        .contains("is in the future");
    assertThat(
            Cli.run(
                    cli,
                    env.vars(),
                    "backfill",
                    "bf-b",
                    "--from",
                    "2026-01-05",
                    "--to",
                    "2026-01-05")
                .err())
        .contains("must be before --to");
    assertThat(
            Cli.run(
                    cli,
                    env.vars(),
                    "backfill",
                    "bf-b",
                    "--from",
                    "yesterday",
                    "--to",
                    "2026-01-05")
                .err())
        .contains("--from 'yesterday' is not a time");
    assertThat(
            Cli.run(
                    cli,
                    env.vars(),
                    "backfill",
                    "bf-b",
                    "--from",
                    "2026-01-01",
                    "--to",
                    "2026-01-05",
                    "--rate",
                    "0")
                .err())
        .contains("--rate 0.0 must be more than 0");
    assertThat(
            Cli.run(
                    cli,
                    env.vars(),
                    "backfill",
                    "ghost",
                    "--from",
                    "2026-01-01",
                    "--to",
                    "2026-01-05")
                .err())
        .contains("no task 'ghost'");
    Cli.Result tooMany =
        Cli.run(
            cli,
            env.vars(),
            "backfill",
            "bf-minutely",
            "--from",
            "2026-01-01",
            "--to",
            "2026-01-10");
    assertThat(tooMany.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(tooMany.err()).contains("one backfill creates at most 10000");
    assertThat(instances.list("bf-b", null, null, 10)).isEmpty();
    assertThat(instances.list("bf-minutely", null, null, 10)).isEmpty();
  }
}
