package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.client.model.ApplyResult;
import dev.carillon.client.model.BackfillResult;
import dev.carillon.client.model.ConfigChange;
import dev.carillon.client.model.ConfigKeyView;
import dev.carillon.client.model.ConfigView;
import dev.carillon.client.model.DeleteResult;
import dev.carillon.client.model.EffectView;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.InstanceChange;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.NextFiresView;
import dev.carillon.client.model.RerunDeadResult;
import dev.carillon.client.model.RetryPlanView;
import dev.carillon.client.model.RunResult;
import dev.carillon.client.model.TaskStateView;
import dev.carillon.client.model.TaskView;
import dev.carillon.client.model.TimeoutSuggestionView;
import dev.carillon.client.model.Whoami;
import dev.carillon.client.model.WhyView;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.kafka.ConfigTopic;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskEvent;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.RetryStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every endpoint over real HTTP against devstack, each change checked in the tables with the caller
 * recorded as {@code api:<principal>}.
 */
@ExtendWith(DevStackExtension.class)
class ApiEndpointsTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_endpoints");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  private static Instance finished(String task, String window, boolean success) {
    Instance p = api.pending(task, window);
    Instance claimed = api.leases.claim(List.of(p.id()), "w1").get(0);
    assertThat(
            api.leases.complete(
                new Lease(claimed.id(), claimed.attempt()),
                success ? Outcome.success("done", false, null) : Outcome.failure("boom", true),
                "w1"))
        .isTrue();
    return api.operator.find(p.id()).orElseThrow();
  }

  /** FAILED -> DEAD as the retry service decides when no retry is allowed. */
  private static Instance deadFrom(Instance failed) {
    // The retry leader's write: it carries the retry epoch, taken here for the test.
    Fence retryLeader = new EpochStore(api.db.dsl()).begin("retry", "test");
    assertThat(
            new RetryStore(api.db.dsl())
                .markDead(failed, null, "retry:test", "no retry allowed", false, retryLeader))
        .isTrue();
    return api.operator.find(failed.id()).orElseThrow();
  }

  @Test
  void tasks_are_listed_with_next_fire_and_last_outcome_and_paged_by_cursor() {
    for (int i = 0; i < 3; i++) {
      api.apply(
          Tasks.daily("list-" + i)
              .cron("0 0 8 * * ?", ZoneId.of("Europe/Berlin"), WindowKind.DAILY)
              .build());
    }
    api.apply(Tasks.daily("list-paused").paused(true).handler("sleep").build());
    finished("list-1", "2026-03-28", true);

    Response first = api.call("GET", "/api/v1/tasks?limit=2", api.viewer);
    assertThat(first.status()).isEqualTo(200);
    JsonNode page = first.json();
    assertThat(page.get("items")).hasSize(2);
    String cursor = page.get("nextCursor").asText();
    List<String> ids = new ArrayList<>();
    page.get("items").forEach(t -> ids.add(t.get("id").asText()));
    Response rest = api.call("GET", "/api/v1/tasks?limit=500&cursor=" + cursor, api.viewer);
    rest.json().get("items").forEach(t -> ids.add(t.get("id").asText()));
    assertThat(rest.json().get("nextCursor")).isNull();
    assertThat(ids).contains("list-0", "list-1", "list-2", "list-paused").doesNotHaveDuplicates();

    TaskView one = api.call("GET", "/api/v1/tasks/list-1", api.viewer).as(TaskView.class);
    assertThat(one.trigger().kind()).isEqualTo("CRON");
    assertThat(one.trigger().cron()).isEqualTo("0 0 8 * * ?");
    assertThat(one.zone()).isEqualTo("Europe/Berlin");
    assertThat(one.nextFire().utc())
        .as("08:00 in Berlin (CEST) after 12:00Z")
        .isEqualTo(Instant.parse("2026-03-30T06:00:00Z"));
    assertThat(one.nextFire().local()).isEqualTo("2026-03-30T08:00:00+02:00");
    assertThat(one.lastOutcome().status()).isEqualTo("SUCCESS");
    assertThat(one.lastOutcome().windowKey()).isEqualTo("2026-03-28");

    Response paused = api.call("GET", "/api/v1/tasks?paused=true&handler=sleep", api.viewer);
    assertThat(paused.json().get("items")).hasSize(1);
    assertThat(paused.json().get("items").get(0).get("id").asText()).isEqualTo("list-paused");
    assertThat(paused.json().get("items").get(0).get("nextFire"))
        .as("paused: no next fire")
        .isNull();
  }

  @Test
  void next_lists_fire_times_with_dst_notes() {
    api.apply(
        Tasks.daily("next-ny")
            .cron("0 30 2 * * ?", ZoneId.of("America/New_York"), WindowKind.DAILY)
            .build());
    NextFiresView next =
        api.call("GET", "/api/v1/tasks/next-ny/next?count=3", api.viewer).as(NextFiresView.class);
    assertThat(next.fires()).hasSize(3);
    assertThat(next.zone()).isEqualTo("America/New_York");
    assertThat(next.fires().get(0).utc()).isAfter(ApiFixture.START);
    assertThat(next.fires().get(0).window()).isNotBlank();
  }

  @Test
  void pause_and_resume_record_the_caller_in_the_task_history() {
    api.apply(Tasks.daily("pausing").build());
    TaskStateView paused =
        api.call("POST", "/api/v1/tasks/pausing/pause", api.operatorToken).as(TaskStateView.class);
    assertThat(paused).isEqualTo(new TaskStateView("pausing", true, true, 2));
    TaskStateView again =
        api.call("POST", "/api/v1/tasks/pausing/pause", api.operatorToken).as(TaskStateView.class);
    assertThat(again.changed()).isFalse();
    TaskStateView resumed =
        api.call("POST", "/api/v1/tasks/pausing/resume", api.admin).as(TaskStateView.class);
    assertThat(resumed).isEqualTo(new TaskStateView("pausing", false, true, 3));
    assertThat(api.tasks.events("pausing"))
        .extracting(e -> e.kind() + " " + e.actor())
        .containsExactly("CREATED test", "PAUSED api:otto", "RESUMED api:ada");
  }

  @Test
  void run_now_creates_a_manual_instance_published_at_once_and_recorded() {
    api.apply(Tasks.daily("runnable").build());
    Response r =
        api.call(
            "POST",
            "/api/v1/tasks/runnable/runs",
            api.operatorToken,
            null,
            Map.of("Idempotency-Key", "k-1"));
    assertThat(r.status()).isEqualTo(201);
    RunResult run = r.as(RunResult.class);
    assertThat(run.created()).isTrue();
    assertThat(run.published()).isTrue();
    InstanceView i = run.instance();
    assertThat(i.origin()).isEqualTo("MANUAL");
    assertThat(i.status()).isEqualTo("PENDING");
    assertThat(i.windowKey()).startsWith("manual-");
    assertThat(i.scheduledAt()).isEqualTo(ApiFixture.START);
    assertThat(i.windowStart())
        .as("the task's current window")
        .isEqualTo(Instant.parse("2026-03-29T00:00:00Z"));
    assertThat(api.operator.find(i.id()).orElseThrow().dispatchedAt())
        .as("stamped after Kafka's ack")
        .isNotNull();
    assertThat(api.operator.events(i.id()))
        .singleElement()
        .satisfies(e -> assertThat(e.actor()).isEqualTo("api:otto"))
        .satisfies(e -> assertThat(e.kind()).isEqualTo(InstanceEvent.Kind.CREATED));
  }

  @Test
  void instances_are_listed_newest_first_filtered_and_paged() {
    api.apply(Tasks.daily("listed").build());
    List<Long> ids = new ArrayList<>();
    for (int d = 1; d <= 5; d++) {
      ids.add(api.pending("listed", String.format("2026-01-%02d", d)).id());
    }
    Response first =
        api.call("GET", "/api/v1/instances?task=listed&limit=2&status=pending", api.viewer);
    assertThat(first.status()).isEqualTo(200);
    List<Long> seen = new ArrayList<>();
    first.json().get("items").forEach(i -> seen.add(i.get("id").asLong()));
    String cursor = first.json().get("nextCursor").asText();
    while (cursor != null) {
      JsonNode page =
          api.call(
                  "GET",
                  "/api/v1/instances?task=listed&limit=2&status=pending&cursor=" + cursor,
                  api.viewer)
              .json();
      page.get("items").forEach(i -> seen.add(i.get("id").asLong()));
      cursor = page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null;
    }
    // pendingKey schedules every window at the same instant: ties go by id, newest first.
    assertThat(seen).containsExactly(ids.get(4), ids.get(3), ids.get(2), ids.get(1), ids.get(0));
    JsonNode none =
        api.call("GET", "/api/v1/instances?task=listed&origin=BACKFILL,EVENT", api.viewer).json();
    assertThat(none.get("items")).isEmpty();
    JsonNode ranged =
        api.call(
                "GET",
                "/api/v1/instances?task=listed&from=2025-12-31T00:00:00Z&to=2026-01-02",
                api.viewer)
            .json();
    assertThat(ranged.get("items")).hasSize(5);
  }

  @Test
  void an_instance_its_events_and_its_why_are_readable() {
    api.apply(
        Tasks.daily("readable")
            .cron("0 0 8 * * ?", ZoneId.of("Europe/Berlin"), WindowKind.DAILY)
            .build());
    Instance i = finished("readable", "2026-02-01", true);
    InstanceView view =
        api.call("GET", "/api/v1/instances/" + i.id(), api.viewer).as(InstanceView.class);
    assertThat(view.status()).isEqualTo("SUCCESS");
    assertThat(view.resultSummary()).isEqualTo("done");
    assertThat(view.timeout()).isEqualTo("5m");
    EventView[] events =
        api.call("GET", "/api/v1/instances/" + i.id() + "/events", api.viewer)
            .as(EventView[].class);
    assertThat(events)
        .extracting(EventView::kind)
        .containsExactly("CREATED", "TRANSITION", "TRANSITION");
    assertThat(events[1].text()).isEqualTo("claimed by w1 (attempt 1)");
    WhyView why =
        api.call("GET", "/api/v1/instances/" + i.id() + "/why", api.viewer).as(WhyView.class);
    assertThat(why.windowKey()).isEqualTo("2026-02-01");
    assertThat(why.lines().get(0))
        .isEqualTo("Window '2026-02-01' of task 'readable' (times in UTC and Europe/Berlin):");
    assertThat(why.lines().get(1))
        .as("each time in UTC and on the task's wall clock")
        .matches(
            "  \\S+Z \\(\\S+\\+0[12]:00\\)  #" + i.id() + " created PENDING by trigger:test.*");
    assertThat(why.lines()).hasSize(4);
    assertThat(why.lines().get(3))
        .contains("#" + i.id() + " succeeded (attempt 1), reported by w1");
  }

  @Test
  void cancel_and_rerun_move_the_instance_and_record_the_caller() {
    api.apply(Tasks.daily("changed").build());
    Instance pending = api.pending("changed", "2026-02-02");
    InstanceChange cancelled =
        api.call(
                "POST",
                "/api/v1/instances/" + pending.id() + "/cancel",
                api.operatorToken,
                "{\"reason\":\"not today\"}")
            .as(InstanceChange.class);
    assertThat(cancelled.previousStatus()).isEqualTo("PENDING");
    assertThat(cancelled.instance().status()).isEqualTo("CANCELLED");
    InstanceChange rerun =
        api.call("POST", "/api/v1/instances/" + pending.id() + "/rerun", api.operatorToken)
            .as(InstanceChange.class);
    assertThat(rerun.previousStatus()).isEqualTo("CANCELLED");
    assertThat(rerun.instance().status()).isEqualTo("PENDING");
    assertThat(rerun.published()).isTrue();
    List<InstanceEvent> events = api.operator.events(pending.id());
    assertThat(events)
        .extracting(InstanceEvent::actor)
        .containsExactly("trigger:test", "api:otto", "api:otto");
    assertThat(events.get(1).reason()).isEqualTo("cancelled by api:otto: not today");
    assertThat(events.get(2).reason()).isEqualTo("re-run requested by api:otto");
  }

  @Test
  void an_instance_shows_its_checkpoints_and_effects_and_a_rerun_keeps_them_unless_from_scratch() {
    api.apply(Tasks.daily("resumable").build());
    Instance p = api.pending("resumable", "2026-02-03");
    Instance claimed = api.leases.claim(List.of(p.id()), "w1").get(0);
    Lease lease = new Lease(claimed.id(), claimed.attempt());
    ResumeStore resume = new ResumeStore(api.db.dsl());
    resume.saveCheckpoint(lease, "w1", "{\"next\":40}");
    resume.startEffect(lease, "w1", "post");
    resume.recordEffect(lease, "w1", "post", "msg-17");
    resume.startEffect(lease, "w1", "charge");
    api.leases.complete(lease, Outcome.success("done", false, null), "w1");

    InstanceView view =
        api.call("GET", "/api/v1/instances/" + p.id(), api.viewer).as(InstanceView.class);
    assertThat(view.checkpoints())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.attempt()).isEqualTo(1);
              assertThat(c.state().get("next").asInt()).isEqualTo(40);
              assertThat(c.workerId()).isEqualTo("w1");
            });
    assertThat(view.effects())
        .extracting(EffectView::key, EffectView::done, EffectView::result)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("charge", false, null),
            org.assertj.core.groups.Tuple.tuple("post", true, "msg-17"));
    JsonNode listed =
        api.call("GET", "/api/v1/instances?task=resumable", api.viewer).json().get("items").get(0);
    assertThat(listed.has("checkpoints")).as("lists leave them out").isFalse();

    api.call("POST", "/api/v1/instances/" + p.id() + "/rerun", api.operatorToken);
    assertThat(api.operator.checkpoints(p.id())).as("a plain re-run keeps them").hasSize(1);
    Instance again = api.leases.claim(List.of(p.id()), "w2").get(0);
    api.leases.complete(
        new Lease(again.id(), again.attempt()), Outcome.success("done", false, null), "w2");

    Response refused =
        api.call(
            "POST",
            "/api/v1/instances/" + p.id() + "/cancel",
            api.operatorToken,
            "{\"fromScratch\":true}");
    assertThat(refused.status()).isEqualTo(400);
    InstanceChange fresh =
        api.call(
                "POST",
                "/api/v1/instances/" + p.id() + "/rerun",
                api.operatorToken,
                "{\"fromScratch\":true,\"reason\":\"wrong input\"}")
            .as(InstanceChange.class);
    assertThat(fresh.instance().status()).isEqualTo("PENDING");
    assertThat(api.operator.checkpoints(p.id())).isEmpty();
    assertThat(api.operator.effects(p.id())).isEmpty();
    assertThat(api.operator.events(p.id()))
        .last()
        .satisfies(
            e ->
                assertThat(e.reason())
                    .isEqualTo(
                        "re-run requested by api:otto: wrong input; from scratch: discarded 1"
                            + " checkpoint and 2 effects (charge, post)"));
  }

  @Test
  void bulk_rerun_of_dead_is_a_dry_run_by_default_and_then_moves_them_paced() {
    api.apply(Tasks.daily("deadly").build());
    List<Long> dead = new ArrayList<>();
    for (int d = 1; d <= 3; d++) {
      dead.add(deadFrom(finished("deadly", String.format("2026-02-%02d", d + 10), false)).id());
    }
    RerunDeadResult dry =
        api.call("POST", "/api/v1/instances:rerun-dead", api.operatorToken, "{\"task\":\"deadly\"}")
            .as(RerunDeadResult.class);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.matched()).isEqualTo(3);
    assertThat(dry.ids()).containsExactlyInAnyOrderElementsOf(dead);
    assertThat(api.operator.countByStatus("deadly")).containsEntry(InstanceStatus.DEAD, 3);

    Instant before = api.clock.instant();
    RerunDeadResult real =
        api.call(
                "POST",
                "/api/v1/instances:rerun-dead",
                api.operatorToken,
                "{\"task\":\"deadly\",\"dryRun\":false,\"reason\":\"tool fixed\",\"limit\":3}")
            .as(RerunDeadResult.class);
    assertThat(real.moved()).isEqualTo(3);
    assertThat(real.published()).isEqualTo(3);
    assertThat(api.operator.countByStatus("deadly")).containsEntry(InstanceStatus.PENDING, 3);
    assertThat(api.operator.events(dead.get(0)))
        .last()
        .satisfies(e -> assertThat(e.actor()).isEqualTo("api:otto"))
        .satisfies(
            e -> assertThat(e.reason()).isEqualTo("bulk re-run of DEAD by api:otto: tool fixed"));
    assertThat(api.clock.instant()).as("one batch, no wait").isEqualTo(before);
  }

  @Test
  void backfill_lists_then_creates_the_missing_windows_of_a_past_range() {
    api.apply(Tasks.daily("filled").build());
    api.pending("filled", "2026-03-02");
    BackfillResult dry =
        api.call(
                "POST",
                "/api/v1/tasks/filled/backfill",
                api.operatorToken,
                "{\"from\":\"2026-03-01\",\"to\":\"2026-03-04\"}")
            .as(BackfillResult.class);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.windowKeys()).containsExactly("2026-03-01", "2026-03-02", "2026-03-03");
    BackfillResult real =
        api.call(
                "POST",
                "/api/v1/tasks/filled/backfill",
                api.operatorToken,
                "{\"from\":\"2026-03-01\",\"to\":\"2026-03-04\",\"dryRun\":false}")
            .as(BackfillResult.class);
    assertThat(real.created()).isEqualTo(2);
    assertThat(real.existed()).isEqualTo(1);
    assertThat(real.published()).isEqualTo(2);
    assertThat(real.windowKeys()).containsExactly("2026-03-01", "2026-03-03");
    Instance created = api.operator.findByWindow("filled", "2026-03-01").orElseThrow();
    assertThat(created.origin().name()).isEqualTo("BACKFILL");
    assertThat(api.operator.events(created.id()).get(0).actor()).isEqualTo("api:otto");
  }

  @Test
  void delete_refuses_live_instances_then_cancels_them_and_hides_the_task() {
    api.apply(Tasks.daily("doomed").build());
    Instance live = api.pending("doomed", "2026-02-20");
    Response refused = api.call("DELETE", "/api/v1/tasks/doomed", api.operatorToken);
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.body()).contains("#" + live.id() + " PENDING");

    DeleteResult deleted =
        api.call("DELETE", "/api/v1/tasks/doomed?live=cancel&reason=retired", api.operatorToken)
            .as(DeleteResult.class);
    assertThat(deleted.cancelled()).containsExactly(live.id());
    assertThat(deleted.version()).isEqualTo(2);
    assertThat(api.operator.find(live.id()).orElseThrow().status())
        .isEqualTo(InstanceStatus.CANCELLED);
    assertThat(api.operator.events(live.id()))
        .last()
        .satisfies(e -> assertThat(e.actor()).isEqualTo("api:otto"));

    Response gone = api.call("GET", "/api/v1/tasks/doomed", api.viewer);
    assertThat(gone.status()).isEqualTo(404);
    assertThat(gone.body()).contains("was deleted at");
    assertThat(api.call("GET", "/api/v1/instances/" + live.id(), api.viewer).status())
        .as("its instances stay readable")
        .isEqualTo(200);
    assertThat(api.tasks.events("doomed"))
        .last()
        .satisfies(e -> assertThat(e.kind()).isEqualTo(TaskEvent.Kind.DELETED))
        .satisfies(e -> assertThat(e.actor()).isEqualTo("api:otto"))
        .satisfies(e -> assertThat(e.reason()).isEqualTo("retired"));
  }

  @Test
  void delete_refuses_a_task_others_depend_on() {
    api.apply(Tasks.daily("upstream").build());
    api.apply(Tasks.after("downstream", WindowKind.DAILY, "upstream").build());
    Response r = api.call("DELETE", "/api/v1/tasks/upstream", api.operatorToken);
    assertThat(r.status()).isEqualTo(409);
    assertThat(r.json().get("problems").get(0).get("field").asText()).isEqualTo("id");
    assertThat(r.json().get("problems").get(0).get("value").asText()).isEqualTo("upstream");
    assertThat(r.body()).contains("[downstream]");
  }

  @Test
  void config_shows_the_value_in_force_and_rejected_records_apart_and_admins_change_it() {
    ConfigTopic topic =
        new ConfigTopic(
            KafkaSettings.of(DevStack.shared().kafkaBootstrap()),
            api.configTopic,
            Duration.ofSeconds(10));
    ConfigChange set =
        api.call(
                "PUT",
                "/api/v1/config/retry/digest",
                api.admin,
                "{\"policy\":\"exponential\",\"initial\":\"5m\",\"multiplier\":2,\"maxRetries\":3}")
            .as(ConfigChange.class);
    assertThat(set.value().get("policy").asText()).isEqualTo("EXPONENTIAL");
    // A record written past the validator: the service refuses it and keeps the value above.
    topic.put("retry/digest", "{\"policy\":\"SOMETIMES\"}", "someone-else");
    ConfigKeyView key =
        api.call("GET", "/api/v1/config/retry/digest", api.viewer).as(ConfigKeyView.class);
    assertThat(key.inForce().offset()).isEqualTo(set.offset());
    assertThat(key.inForce().actor()).isEqualTo("api:ada");
    assertThat(key.rejected())
        .singleElement()
        .satisfies(r -> assertThat(r.problems().get(0)).contains("SOMETIMES"));

    ConfigView all = api.call("GET", "/api/v1/config", api.viewer).as(ConfigView.class);
    assertThat(all.entries()).extracting(e -> e.key()).contains("retry/digest");
    assertThat(all.rejected()).extracting(r -> r.actor()).contains("someone-else");

    ConfigChange unset =
        api.call("DELETE", "/api/v1/config/retry/digest", api.admin).as(ConfigChange.class);
    assertThat(unset.value()).isNull();
    ConfigKeyView after =
        api.call("GET", "/api/v1/config/retry/digest", api.viewer).as(ConfigKeyView.class);
    assertThat(after.inForce()).isNull();
  }

  @Test
  void retry_plan_whoami_and_the_openapi_document() {
    RetryPlanView plan =
        api.call(
                "POST",
                "/api/v1/retry-plan",
                api.viewer,
                "{\"recovery\":\"1h\",\"initial\":\"5m\",\"multiplier\":2}")
            .as(RetryPlanView.class);
    assertThat(plan.retries()).isEqualTo(3);
    assertThat(plan.lastStartsAfter()).isEqualTo("35m");
    assertThat(plan.steps())
        .extracting(RetryPlanView.Step::delay)
        .containsExactly("5m", "10m", "20m");
    assertThat(plan.policy().get("policy").asText()).isEqualTo("EXPONENTIAL");

    assertThat(api.call("GET", "/api/v1/whoami", api.operatorToken).as(Whoami.class))
        .isEqualTo(new Whoami("otto", "operator"));
    Response doc = api.call("GET", "/api/v1/openapi.json", api.viewer);
    assertThat(doc.status()).isEqualTo(200);
    assertThat(doc.json().get("openapi").asText()).isEqualTo("3.1.0");
  }

  @Test
  void suggest_timeout_gives_p99_times_one_and_a_half_of_200_recorded_runs() {
    api.tasks.applyAll(
        List.of(
            Tasks.daily("api-evidence").timeout(Duration.ofMinutes(2)).build(),
            Tasks.daily("api-young").build()));
    dev.carillon.testsupport.RecordedRuns.record(
        api.db, "api-evidence", dev.carillon.testsupport.RecordedRuns.seconds(200));
    TimeoutSuggestionView s =
        api.call("GET", "/api/v1/tasks/api-evidence/suggest-timeout", api.viewer)
            .as(TimeoutSuggestionView.class);
    assertThat(s)
        .isEqualTo(
            new TimeoutSuggestionView(
                "api-evidence", 1000, 200, 20, "PT3M18S", 1.5, "PT4M57S", "PT2M", true));
    TimeoutSuggestionView young =
        api.call("GET", "/api/v1/tasks/api-young/suggest-timeout?window=50", api.viewer)
            .as(TimeoutSuggestionView.class);
    assertThat(young.sampleSize()).isZero();
    assertThat(young.window()).isEqualTo(50);
    assertThat(young.p99()).isNull();
    assertThat(young.suggestedTimeout()).isNull();
    Response bad =
        api.call("GET", "/api/v1/tasks/api-evidence/suggest-timeout?window=0", api.viewer);
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body()).contains("window");
    assertThat(api.call("GET", "/api/v1/tasks/nope/suggest-timeout", api.viewer).status())
        .isEqualTo(404);
  }

  private static String spec(String id, String cron) {
    return "{\"id\":\""
        + id
        + "\",\"handler\":\"noop\",\"schedule\":{\"cron\":\""
        + cron
        + "\",\"zone\":\"Europe/Berlin\",\"window\":\"DAILY\"},\"retry\":{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}}";
  }

  @Test
  void apply_creates_changes_and_revives_all_or_nothing_and_records_the_caller() {
    String two =
        "{\"tasks\":["
            + spec("applied-a", "0 0 8 * * ?")
            + ","
            + spec("applied-b", "0 0 9 * * ?")
            + "]}";
    ApplyResult dry =
        api.call("POST", "/api/v1/tasks:apply?dryRun=true", api.operatorToken, two)
            .as(ApplyResult.class);
    assertThat(dry.dryRun()).isTrue();
    assertThat(dry.tasks())
        .extracting(ApplyResult.Applied::outcome)
        .containsExactly("valid", "valid");
    assertThat(api.tasks.load("applied-a")).as("a dry run writes nothing").isEmpty();

    ApplyResult created =
        api.call("POST", "/api/v1/tasks:apply", api.operatorToken, two).as(ApplyResult.class);
    assertThat(created.tasks())
        .containsExactly(
            new ApplyResult.Applied("applied-a", 1, "created"),
            new ApplyResult.Applied("applied-b", 1, "created"));
    TaskView a = api.call("GET", "/api/v1/tasks/applied-a", api.viewer).as(TaskView.class);
    assertThat(a.zone()).isEqualTo("Europe/Berlin");
    assertThat(a.retry().get("maxRetries").asInt()).isEqualTo(2);

    String changed =
        "{\"tasks\":["
            + spec("applied-a", "0 30 8 * * ?")
            + ","
            + spec("applied-b", "0 0 9 * * ?")
            + "]}";
    assertThat(
            api.call("POST", "/api/v1/tasks:apply", api.operatorToken, changed)
                .as(ApplyResult.class)
                .tasks())
        .containsExactly(
            new ApplyResult.Applied("applied-a", 2, "changed"),
            new ApplyResult.Applied("applied-b", 1, "unchanged"));

    String yaml =
        "tasks:\n"
            + "  - id: applied-yaml\n"
            + "    handler: noop\n"
            + "    schedule: { cron: \"0 0 7 * * ?\", zone: UTC, window: DAILY }\n";
    Response fromYaml =
        api.call(
            "POST",
            "/api/v1/tasks:apply",
            api.operatorToken,
            yaml,
            Map.of("Content-Type", "application/yaml"));
    assertThat(fromYaml.status()).isEqualTo(200);
    assertThat(fromYaml.as(ApplyResult.class).tasks().get(0).outcome()).isEqualTo("created");

    api.call("DELETE", "/api/v1/tasks/applied-b", api.operatorToken);
    assertThat(
            api.call("POST", "/api/v1/tasks:apply", api.operatorToken, changed)
                .as(ApplyResult.class)
                .tasks())
        .containsExactly(
            new ApplyResult.Applied("applied-a", 2, "unchanged"),
            new ApplyResult.Applied("applied-b", 3, "revived"));
    assertThat(api.tasks.events("applied-b"))
        .extracting(e -> e.kind() + " " + e.actor())
        .containsExactly("CREATED api:otto", "DELETED api:otto", "REVIVED api:otto");
  }

  @Test
  void put_creates_then_replaces_one_task() {
    Response created =
        api.call("PUT", "/api/v1/tasks/put-one", api.operatorToken, spec("put-one", "0 0 8 * * ?"));
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.as(ApplyResult.class).tasks())
        .containsExactly(new ApplyResult.Applied("put-one", 1, "created"));
    Response replaced =
        api.call(
            "PUT", "/api/v1/tasks/put-one", api.operatorToken, spec("put-one", "0 0 10 * * ?"));
    assertThat(replaced.status()).isEqualTo(200);
    assertThat(replaced.as(ApplyResult.class).tasks())
        .containsExactly(new ApplyResult.Applied("put-one", 2, "changed"));
    assertThat(
            api.call("GET", "/api/v1/tasks/put-one", api.viewer)
                .as(TaskView.class)
                .trigger()
                .cron())
        .isEqualTo("0 0 10 * * ?");
  }
}
