package dev.carillon.control;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.client.model.AttemptView;
import dev.carillon.client.model.ConfigChange;
import dev.carillon.client.model.DeadGroupView;
import dev.carillon.client.model.OverviewView;
import dev.carillon.client.model.RerunDeadResult;
import dev.carillon.client.model.TaskRetryView;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.store.RetryStore;
import dev.carillon.store.ScanRecords;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The read-only summaries over real HTTP on devstack: the overview's counts, hours and fire lag
 * (hours in UTC although the database session runs in Pacific/Chatham, +12:45), the retry service's
 * recorded pass, DEAD instances grouped by task and reason and re-run by group, attempts read from
 * the history, and a task's retry policy in force with its plan.
 */
@ExtendWith(DevStackExtension.class)
class InsightRoutesTest {
  private static final String DEAD = "retries used up; last failure: ";
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_insight");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  /** An instance scheduled at {@code at}, created by the trigger {@code lagMs} later. */
  private static Instance scheduled(String task, Instant at, Origin origin, long lagMs) {
    Instance i =
        api.windows
            .create(
                List.of(
                    NewInstance.pending(
                        task,
                        new Window(at.toString(), at, at.plusSeconds(1)),
                        at,
                        origin,
                        Duration.ofMinutes(1),
                        0)),
                "trigger:test")
            .get(0);
    api.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.CREATED_AT, at.plusMillis(lagMs))
        .where(TASK_INSTANCE.ID.eq(i.id()))
        .execute();
    return i;
  }

  private static Instance failed(String task, String window, String reason, String worker) {
    Instance p = api.pending(task, window);
    return fail(p, reason, worker);
  }

  private static Instance fail(Instance pending, String reason, String worker) {
    Instance claimed = api.leases.claim(List.of(pending.id()), worker).get(0);
    assertThat(
            api.leases.complete(
                new Lease(claimed.id(), claimed.attempt()), Outcome.failure(reason, true), worker))
        .isTrue();
    return api.operator.find(pending.id()).orElseThrow();
  }

  /** FAILED -> DEAD as the retry service does: the decision, then the last failure's reason. */
  private static Instance dead(Instance failed) {
    assertThat(
            new RetryStore(api.db.dsl())
                .markDead(
                    failed,
                    null,
                    "retry:test",
                    DEAD + failed.failReason(),
                    true,
                    new EpochStore(api.db.dsl()).begin("retry", "test")))
        .isTrue();
    return api.operator.find(failed.id()).orElseThrow();
  }

  @Test
  void the_api_counts_the_overviews_earlier_hours_when_it_starts() throws Exception {
    // The default window's 24 hours less the two live ones, counted before any request.
    assertThat(api.server.overviewWarmUp().get(60, TimeUnit.SECONDS)).isEqualTo(22);
  }

  @Test
  void the_overview_counts_by_status_and_utc_hour_measures_fire_lag_and_names_the_scan() {
    api.apply(Tasks.daily("ov-task").build());
    Instant now = api.clock.instant(); // 2026-03-29T12:00:00Z
    scheduled("ov-task", now.minusSeconds(3000), Origin.SCHEDULE, 100); // 11:10
    scheduled("ov-task", now.minusSeconds(1200), Origin.SCHEDULE, 200); // 11:40
    scheduled("ov-task", now.minusSeconds(300), Origin.SCHEDULE, 3000); // 11:55
    scheduled("ov-task", now.minusSeconds(1800), Origin.MANUAL, 3_600_000); // not a fire time
    scheduled("ov-task", now.minusSeconds(3601), Origin.SCHEDULE, 60_000); // 10:59:59
    scheduled("ov-task", now, Origin.MANUAL, 0); // 12:00
    api.scans.record(
        new ScanRecords.Pass(
            "retry-1",
            true,
            now.minusMillis(1500),
            now.minusMillis(1000),
            true,
            1,
            2,
            3,
            4,
            5,
            6,
            7));

    OverviewView o = api.call("GET", "/api/v1/overview?hours=2", api.viewer).as(OverviewView.class);

    assertThat(o.at()).isEqualTo(now);
    assertThat(o.live())
        .containsOnlyKeys("PENDING", "RUNNING", "RETRY_WAIT", "FAILED", "TIMEOUT")
        .containsEntry("PENDING", 6L)
        .containsEntry("RUNNING", 0L);
    assertThat(o.perHour())
        .extracting(OverviewView.Hour::hour)
        .containsExactly(Instant.parse("2026-03-29T11:00:00Z"), now);
    assertThat(o.perHour().get(0).counts()).isEqualTo(Map.of("PENDING", 4L));
    assertThat(o.perHour().get(1).counts()).isEqualTo(Map.of("PENDING", 1L));
    // Only SCHEDULE windows whose fire time is in the last hour: 100, 200 and 3000 ms late.
    assertThat(o.fireLag().windows()).isEqualTo(3);
    assertThat(o.fireLag().p50Ms()).isEqualTo(200);
    assertThat(o.fireLag().p95Ms()).isEqualTo(2720);
    assertThat(o.fireLag().maxMs()).isEqualTo(3000);
    assertThat(o.trigger()).isEqualTo(new OverviewView.Leader(null, "api-test-replica"));
    assertThat(o.retryScan())
        .isEqualTo(
            new OverviewView.Scan(
                "retry-1",
                true,
                now.minusMillis(1500),
                now.minusMillis(1000),
                500,
                true,
                1,
                2,
                3,
                4,
                5,
                6,
                7));
    assertThat(o.workers().known()).isFalse();
    assertThat(o.workers().note()).contains("worker presence");

    assertThat(api.call("GET", "/api/v1/overview?hours=169", api.viewer).status()).isEqualTo(400);
  }

  @Test
  void dead_letters_are_grouped_by_task_and_reason_and_a_group_is_rerun_alone() {
    api.apply(Tasks.daily("dl-a").build(), Tasks.daily("dl-b").build());
    int before = deadOf("dl-a") + deadOf("dl-b");
    assertThat(before).isZero();
    long boom1 = dead(failed("dl-a", "2026-02-01", "boom: tool down", "w1")).id();
    long boom2 = dead(failed("dl-a", "2026-02-02", "boom: tool down", "w1")).id();
    long other = dead(failed("dl-a", "2026-02-03", "quota exceeded", "w1")).id();
    dead(failed("dl-b", "2026-02-01", "boom: tool down", "w2"));

    List<DeadGroupView> groups =
        List.of(api.call("GET", "/api/v1/dead-letters", api.viewer).as(DeadGroupView[].class));
    assertThat(groups)
        .extracting(DeadGroupView::task, DeadGroupView::reason, DeadGroupView::count)
        .startsWith(
            org.assertj.core.groups.Tuple.tuple("dl-a", DEAD + "boom: tool down", 2L),
            org.assertj.core.groups.Tuple.tuple("dl-a", DEAD + "quota exceeded", 1L),
            org.assertj.core.groups.Tuple.tuple("dl-b", DEAD + "boom: tool down", 1L));
    assertThat(groups.get(0).newestId()).isEqualTo(Math.max(boom1, boom2));
    assertThat(
            api.call("GET", "/api/v1/dead-letters?task=dl-b", api.viewer).as(DeadGroupView[].class))
        .singleElement()
        .satisfies(g -> assertThat(g.task()).isEqualTo("dl-b"));
    assertThat(api.call("GET", "/api/v1/dead-letters?task=NOT_A_TASK", api.viewer).status())
        .isEqualTo(400);
    assertThat(api.call("GET", "/api/v1/overview", api.viewer).as(OverviewView.class).dead())
        .isGreaterThanOrEqualTo(4);

    String group = "{\"task\":\"dl-a\",\"failReason\":\"" + DEAD + "boom: tool down\"";
    RerunDeadResult dry =
        api.call("POST", "/api/v1/instances:rerun-dead", api.operatorToken, group + "}")
            .as(RerunDeadResult.class);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.ids()).containsExactlyInAnyOrder(boom1, boom2);
    RerunDeadResult real =
        api.call(
                "POST",
                "/api/v1/instances:rerun-dead",
                api.operatorToken,
                group + ",\"dryRun\":false}")
            .as(RerunDeadResult.class);
    assertThat(real.moved()).isEqualTo(2);
    assertThat(api.operator.find(other).orElseThrow().status()).isEqualTo(InstanceStatus.DEAD);
    assertThat(api.operator.find(boom1).orElseThrow().status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(deadOf("dl-b")).isEqualTo(1);
  }

  private static int deadOf(String task) {
    return api.operator.countByStatus(task).getOrDefault(InstanceStatus.DEAD, 0);
  }

  @Test
  void attempts_are_read_from_the_history_with_worker_outcome_and_reason() {
    api.apply(Tasks.daily("att").build());
    Instance first = dead(failed("att", "2026-02-01", "timeout calling search", "worker-a"));
    Response rerun =
        api.call("POST", "/api/v1/instances/" + first.id() + "/rerun", api.operatorToken);
    assertThat(rerun.status()).as("%s", rerun).isEqualTo(200);
    Instance claimed = api.leases.claim(List.of(first.id()), "worker-b").get(0);

    List<AttemptView> running =
        List.of(
            api.call("GET", "/api/v1/instances/" + first.id() + "/attempts", api.viewer)
                .as(AttemptView[].class));
    assertThat(running)
        .extracting(AttemptView::number, AttemptView::worker, AttemptView::outcome)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, "worker-a", "FAILED"),
            org.assertj.core.groups.Tuple.tuple(2, "worker-b", null));
    assertThat(running.get(0).reason()).isEqualTo("timeout calling search");
    assertThat(running.get(1).endedAt()).isNull();

    api.leases.complete(
        new Lease(claimed.id(), claimed.attempt()), Outcome.success("ok", false, null), "worker-b");
    List<AttemptView> done =
        List.of(
            api.call("GET", "/api/v1/instances/" + first.id() + "/attempts", api.viewer)
                .as(AttemptView[].class));
    assertThat(done.get(1).outcome()).isEqualTo("SUCCESS");
    assertThat(done.get(1).endedAt()).isNotNull();
    assertThat(api.call("GET", "/api/v1/instances/987654321/attempts", api.viewer).status())
        .isEqualTo(404);
  }

  @Test
  void a_task_retry_view_names_the_policy_in_force_its_version_and_its_plan() {
    String spec =
        "{\"tasks\":[{\"id\":\"retrying\",\"handler\":\"noop\",\"schedule\":{\"cron\":\"0 0 8 *"
            + " * ?\",\"zone\":\"UTC\",\"window\":\"DAILY\"},\"retry\":{\"policy\":\"EXPONENTIAL\","
            + "\"initial\":\"1m\",\"multiplier\":2,\"jitter\":0,\"maxRetries\":3}}]}";
    Response applied = api.call("POST", "/api/v1/tasks:apply", api.operatorToken, spec);
    assertThat(applied.status()).as("%s", applied).isIn(200, 201);

    TaskRetryView own =
        api.call("GET", "/api/v1/tasks/retrying/retry", api.viewer).as(TaskRetryView.class);
    assertThat(own.source()).isEqualTo("DEFINITION");
    assertThat(own.policy().get("policy").asText()).isEqualTo("EXPONENTIAL");
    assertThat(own.steps())
        .extracting(TaskRetryView.Step::delay, TaskRetryView.Step::after)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("1m", "1m"),
            org.assertj.core.groups.Tuple.tuple("2m", "3m"),
            org.assertj.core.groups.Tuple.tuple("4m", "7m"));
    assertThat(own.deadReason()).contains("3");

    ConfigChange set =
        api.call(
                "PUT",
                "/api/v1/config/retry/retrying",
                api.admin,
                "{\"policy\":\"immediate\",\"maxRetries\":1}")
            .as(ConfigChange.class);
    TaskRetryView override =
        api.call("GET", "/api/v1/tasks/retrying/retry", api.viewer).as(TaskRetryView.class);
    assertThat(override.source()).isEqualTo("TASK_OVERRIDE");
    assertThat(override.version()).isEqualTo(set.offset());
    assertThat(override.description()).isEqualTo("IMMEDIATE from retry/retrying@" + set.offset());
    assertThat(override.steps()).hasSize(1);
    JsonNode missing = api.call("GET", "/api/v1/tasks/no-such/retry", api.viewer).json();
    assertThat(missing.get("status").asInt()).isEqualTo(404);
  }
}
