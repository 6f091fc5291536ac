package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.client.model.AttemptView;
import dev.carillon.client.model.BackfillResult;
import dev.carillon.client.model.CheckpointView;
import dev.carillon.client.model.DeadGroupView;
import dev.carillon.client.model.EffectView;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.TaskView;
import dev.carillon.client.model.WhyView;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.RetryStore;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every API view with an instant also carries it on the task's wall clock: events, attempts,
 * checkpoints, effects, dead groups, the why story, a task's last outcome and one-shot instant, a
 * backfill's range. Times the database stamps are checked in Asia/Kolkata, whose offset is +05:30
 * all year, so the expected wall clock is worked out here without the zone rules; times the test
 * chooses are checked in America/New_York across its March 2026 change, as exact strings.
 */
@ExtendWith(DevStackExtension.class)
class LocalTimesApiTest {
  private static final ZoneId KOLKATA = ZoneId.of("Asia/Kolkata");
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("local_times");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  /** {@code at} at +05:30, worked out by adding the offset (not through the zone's rules). */
  private static String kolkata(Instant at) {
    return at.truncatedTo(ChronoUnit.SECONDS)
            .plusSeconds(5 * 3600 + 30 * 60)
            .atOffset(ZoneOffset.UTC)
            .toLocalDateTime()
            .format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
        + "+05:30";
  }

  private static TaskDefinition kolkataDaily(String id) {
    return TaskDefinition.builder(id)
        .handler("noop")
        .cron("0 30 9 * * ?", KOLKATA, WindowKind.DAILY)
        .build();
  }

  @Test
  void events_attempts_checkpoints_effects_and_why_show_each_instant_on_the_tasks_clock() {
    api.apply(kolkataDaily("kol-run"));
    Instance p = api.pending("kol-run", "2026-02-01");
    Instance claimed = api.leases.claim(List.of(p.id()), "w1").get(0);
    Lease lease = new Lease(claimed.id(), claimed.attempt());
    ResumeStore resume = new ResumeStore(api.db.dsl());
    resume.saveCheckpoint(lease, "w1", "{\"next\":1}");
    resume.startEffect(lease, "w1", "post");
    resume.recordEffect(lease, "w1", "post", "msg-1");
    api.leases.complete(lease, Outcome.success("done", false, null), "w1");

    EventView[] events =
        api.call("GET", "/api/v1/instances/" + p.id() + "/events", api.viewer)
            .as(EventView[].class);
    assertThat(events).hasSize(3);
    for (EventView e : events) {
      assertThat(e.zone()).isEqualTo("Asia/Kolkata");
      assertThat(e.local()).containsExactly(Map.entry("at", kolkata(e.at())));
    }

    AttemptView[] attempts =
        api.call("GET", "/api/v1/instances/" + p.id() + "/attempts", api.viewer)
            .as(AttemptView[].class);
    assertThat(attempts)
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.zone()).isEqualTo("Asia/Kolkata");
              assertThat(a.local())
                  .containsOnly(
                      Map.entry("startedAt", kolkata(a.startedAt())),
                      Map.entry("endedAt", kolkata(a.endedAt())));
            });

    InstanceView view =
        api.call("GET", "/api/v1/instances/" + p.id(), api.viewer).as(InstanceView.class);
    CheckpointView c = view.checkpoints().get(0);
    assertThat(c.zone()).isEqualTo("Asia/Kolkata");
    assertThat(c.local()).containsExactly(Map.entry("savedAt", kolkata(c.savedAt())));
    EffectView e = view.effects().get(0);
    assertThat(e.zone()).isEqualTo("Asia/Kolkata");
    assertThat(e.local())
        .containsOnly(
            Map.entry("startedAt", kolkata(e.startedAt())),
            Map.entry("doneAt", kolkata(e.doneAt())));
    assertThat(view.local())
        .as("the instance's own times, the created and updated stamps too")
        .containsEntry("createdAt", kolkata(view.createdAt()))
        .containsEntry("updatedAt", kolkata(view.updatedAt()))
        .containsEntry("finishedAt", kolkata(view.finishedAt()));

    WhyView why =
        api.call("GET", "/api/v1/instances/" + p.id() + "/why", api.viewer).as(WhyView.class);
    assertThat(why.zone()).isEqualTo("Asia/Kolkata");
    assertThat(why.events())
        .allSatisfy(w -> assertThat(w.local()).containsExactly(Map.entry("at", kolkata(w.at()))));

    TaskView task = api.call("GET", "/api/v1/tasks/kol-run", api.viewer).as(TaskView.class);
    assertThat(task.lastOutcome().zone()).isEqualTo("Asia/Kolkata");
    assertThat(task.lastOutcome().local())
        .containsExactly(Map.entry("finishedAt", kolkata(task.lastOutcome().finishedAt())));
  }

  @Test
  void each_dead_group_is_shown_on_its_own_tasks_clock() {
    api.apply(kolkataDaily("kol-dead"));
    api.apply(
        TaskDefinition.builder("ny-dead")
            .handler("noop")
            .cron("0 0 8 * * ?", NEW_YORK, WindowKind.DAILY)
            .build());
    dead("kol-dead", "2026-02-01");
    dead("ny-dead", "2026-02-01");

    List<DeadGroupView> groups =
        List.of(api.call("GET", "/api/v1/dead-letters", api.viewer).as(DeadGroupView[].class));
    DeadGroupView kol =
        groups.stream().filter(g -> g.task().equals("kol-dead")).findFirst().orElseThrow();
    assertThat(kol.zone()).isEqualTo("Asia/Kolkata");
    assertThat(kol.local())
        .containsOnly(
            Map.entry("firstFinishedAt", kolkata(kol.firstFinishedAt())),
            Map.entry("lastFinishedAt", kolkata(kol.lastFinishedAt())));
    DeadGroupView ny =
        groups.stream().filter(g -> g.task().equals("ny-dead")).findFirst().orElseThrow();
    assertThat(ny.zone()).isEqualTo("America/New_York");
    Instant last = ny.lastFinishedAt().truncatedTo(ChronoUnit.SECONDS);
    assertThat(ny.local().get("lastFinishedAt"))
        .isEqualTo(
            last.atZone(NEW_YORK).toLocalDateTime().format(DateTimeFormatter.ISO_LOCAL_DATE_TIME)
                + NEW_YORK.getRules().getOffset(last).getId());
  }

  @Test
  void a_backfill_range_across_the_spring_change_shows_both_offsets() {
    api.apply(
        TaskDefinition.builder("ny-fill")
            .handler("noop")
            .cron("0 0 8 * * ?", NEW_YORK, WindowKind.DAILY)
            .build());
    BackfillResult dry =
        api.call(
                "POST",
                "/api/v1/tasks/ny-fill/backfill",
                api.operatorToken,
                "{\"from\":\"2026-03-07\",\"to\":\"2026-03-10\"}")
            .as(BackfillResult.class);
    assertThat(dry.from()).isEqualTo(Instant.parse("2026-03-07T05:00:00Z"));
    assertThat(dry.to()).isEqualTo(Instant.parse("2026-03-10T04:00:00Z"));
    assertThat(dry.zone()).isEqualTo("America/New_York");
    assertThat(dry.local())
        .containsOnly(
            Map.entry("from", "2026-03-07T00:00:00-05:00"),
            Map.entry("to", "2026-03-10T00:00:00-04:00"));
  }

  @Test
  void a_one_shot_shows_its_instant_on_the_tasks_clock_after_the_change() {
    Instant at = Instant.parse("2026-03-08T07:30:00Z");
    api.apply(
        TaskDefinition.builder("ny-once")
            .handler("noop")
            .trigger(new AtTrigger(at, WindowKind.EVERY_FIRE, NEW_YORK))
            .build());
    TaskView task = api.call("GET", "/api/v1/tasks/ny-once", api.viewer).as(TaskView.class);
    assertThat(task.trigger().at()).isEqualTo(at);
    assertThat(task.trigger().zone()).isEqualTo("America/New_York");
    assertThat(task.trigger().local())
        .as("07:30 UTC is 03:30 EDT: the clocks went from 02:00 to 03:00 at 07:00 UTC")
        .containsExactly(Map.entry("at", "2026-03-08T03:30:00-04:00"));
  }

  /** A FAILED instance made DEAD as the retry leader does when no retry is allowed. */
  private static void dead(String task, String window) {
    Instance p = api.pending(task, window);
    Instance claimed = api.leases.claim(List.of(p.id()), "w1").get(0);
    api.leases.complete(
        new Lease(claimed.id(), claimed.attempt()), Outcome.failure("boom", true), "w1");
    Instance failed = api.operator.find(p.id()).orElseThrow();
    Fence retryLeader = new EpochStore(api.db.dsl()).begin("retry", "test");
    assertThat(
            new RetryStore(api.db.dsl())
                .markDead(failed, null, "retry:test", "no retry allowed", false, retryLeader))
        .isTrue();
  }
}
