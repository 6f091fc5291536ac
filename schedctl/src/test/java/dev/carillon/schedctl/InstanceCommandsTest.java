package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.instance.Progress;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Decision;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.PresenceStore;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.RetryStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class InstanceCommandsTest {
  private static Cli.Env env;
  private static OperatorStore instances;
  private static WindowStore windows;
  private static LeaseStore leases;
  private static RetryStore retries;
  private static Fence triggerLeader;
  private static Fence retryLeader;
  private static TaskStore tasks;
  private static ResumeStore resume;

  @BeforeAll
  static void setUp() {
    Cli.ensureTopics();
    env = Cli.Env.fresh("schedctl_inst");
    instances = new OperatorStore(env.db().dsl());
    windows = new WindowStore(env.db().dsl());
    leases = new LeaseStore(env.db().dsl());
    retries = new RetryStore(env.db().dsl());
    tasks = new TaskStore(env.db().dsl());
    EpochStore epochs = new EpochStore(env.db().dsl());
    triggerLeader = epochs.begin("trigger", "test");
    retryLeader = epochs.begin("retry", "test");
    resume = new ResumeStore(env.db().dsl());
    tasks.applyAll(
        List.of(
            Tasks.daily("ops-a").build(),
            Tasks.daily("ops-b").build(),
            Tasks.daily("ops-c").build()));
  }

  @AfterAll
  static void tearDown() {
    env.close();
  }

  private static Instance pending(String task, String day) {
    return windows
        .create(List.of(Tasks.pending(task, day, Duration.ofMinutes(5))), "trigger")
        .get(0);
  }

  /** PENDING → RUNNING → FAILED → DEAD, as worker and retry service would. */
  private static Instance dead(String task, String day) {
    Instance i = pending(task, day);
    Instance running = leases.claim(List.of(i.id()), "worker-7").get(0);
    leases.complete(
        new Lease(i.id(), running.attempt()),
        Outcome.failure("search API returned 503", false),
        "worker-7");
    Instance failed = instances.find(i.id()).orElseThrow();
    assertThat(
            retries.markDead(
                failed, 1L, "retry", "no retry allowed: policy NONE", false, retryLeader))
        .isTrue();
    return instances.find(i.id()).orElseThrow();
  }

  @Test
  void get_instances_filters_by_task_status_and_since_and_prints_json() {
    Instance a = pending("ops-a", "2026-01-10");
    dead("ops-a", "2026-01-11");
    pending("ops-b", "2026-01-10");

    Cli.Result table = Cli.run(env.vars(), "get", "instances", "--task", "ops-a");
    assertThat(table.code()).as(table.toString()).isZero();
    assertThat(table.out()).contains("2026-01-10").contains("2026-01-11").doesNotContain("ops-b");

    JsonNode dead =
        Cli.run(env.vars(), "get", "instances", "--task", "ops-a", "--status", "dead", "-o", "json")
            .json();
    assertThat(dead).hasSize(1);
    assertThat(dead.get(0).get("status").asText()).isEqualTo("DEAD");
    assertThat(dead.get(0).get("failReason").asText()).isEqualTo("no retry allowed: policy NONE");

    JsonNode since =
        Cli.run(
                env.vars(),
                "get",
                "instances",
                "--task",
                "ops-a",
                "--since",
                "2026-01-11",
                "-o",
                "json")
            .json();
    assertThat(since.findValuesAsText("windowKey")).containsExactly("2026-01-11");

    JsonNode limited =
        Cli.run(env.vars(), "get", "instances", "--task", "ops-a", "--limit", "1", "-o", "json")
            .json();
    assertThat(limited).hasSize(1);
    assertThat(a.status()).isEqualTo(InstanceStatus.PENDING);
  }

  @Test
  void get_instances_refuses_bad_filters_with_exit_2() {
    assertThat(Cli.run(env.vars(), "get", "instances", "--status", "SLEEPING").code())
        .isEqualTo(Schedctl.BAD_INPUT);
    Cli.Result since = Cli.run(env.vars(), "get", "instances", "--since", "last tuesday");
    assertThat(since.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(since.err()).contains("--since 'last tuesday' is not a time");
    assertThat(Cli.run(env.vars(), "get", "instances", "--limit", "0").code())
        .isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void instants_are_shown_on_the_task_s_wall_clock_beside_utc() {
    ZoneId newYork = ZoneId.of("America/New_York");
    tasks.applyAll(
        List.of(
            TaskDefinition.builder("ops-ny")
                .handler("noop")
                .cron("0 0 8 * * ?", newYork, WindowKind.DAILY)
                .build()));
    Instant fire = Instant.parse("2026-03-08T07:00:00Z"); // 02:30 EST moved to 03:00 EDT
    Instance i =
        windows
            .create(
                List.of(
                    NewInstance.pending(
                        "ops-ny",
                        WindowKind.DAILY.windowOf(fire, newYork),
                        fire,
                        Origin.SCHEDULE,
                        Duration.ofMinutes(5),
                        0)),
                "trigger")
            .get(0);

    assertThat(Cli.run(env.vars(), "get", "instances", "--task", "ops-ny").out())
        .containsPattern("2026-03-08T07:00:00Z\\s+2026-03-08T03:00:00-04:00");
    assertThat(Cli.run(env.vars(), "describe", "instance", Long.toString(i.id())).out())
        .contains("ops-ny  (zone America/New_York)")
        .contains("[2026-03-08T00:00:00-05:00, 2026-03-09T00:00:00-04:00)")
        .contains("2026-03-08T07:00:00Z (2026-03-08T03:00:00-04:00)")
        .containsPattern("LOCAL\\s+EVENT");
    assertThat(Cli.run(env.vars(), "why", "ops-ny", "2026-03-08").out())
        .contains("Window '2026-03-08' of task 'ops-ny' (times in UTC and America/New_York):")
        .containsPattern("Z \\(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d-0[45]:00\\)  #" + i.id());

    // An attempt that reported progress at a chosen instant, checkpointed and recorded an effect.
    Instance claimed = leases.claim(List.of(i.id()), "worker-ny").get(0);
    Lease lease = new Lease(i.id(), claimed.attempt());
    Instant reported = Instant.parse("2026-03-08T07:30:00Z");
    leases.heartbeat(
        "worker-ny", List.of(lease), Map.of(lease, new Progress("read 3 of 9", reported)));
    resume.saveCheckpoint(lease, "worker-ny", "{\"next\":3}");
    resume.startEffect(lease, "worker-ny", "post");
    resume.recordEffect(lease, "worker-ny", "post", "msg-1");
    String local = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d-0[45]:00";
    assertThat(Cli.run(env.vars(), "describe", "instance", Long.toString(i.id())).out())
        .as("07:30 UTC is 03:30 EDT, just after the clocks went forward")
        .contains("read 3 of 9 (reported 2026-03-08T07:30:00Z (2026-03-08T03:30:00-04:00)")
        .containsPattern("ATTEMPT\\s+SAVED\\s+LOCAL\\s+SAVES")
        .containsPattern("1 +\\S+Z +" + local + " +1 +worker-ny +\\{\"next\":3\\}")
        .containsPattern("STATE\\s+AT\\s+LOCAL\\s+WORKER")
        .containsPattern("1 +post +done +\\S+Z +" + local + " +worker-ny +msg-1");
    JsonNode events =
        Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(i.id()))
            .json()
            .get("events");
    assertThat(events).isNotEmpty();
    for (JsonNode e : events) {
      assertThat(e.get("zone").asText()).isEqualTo("America/New_York");
      Instant at = Instant.parse(e.get("at").asText());
      assertThat(java.time.OffsetDateTime.parse(e.get("local").get("at").asText()).toInstant())
          .as("the local reading is the same instant (to the second)")
          .isEqualTo(at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
      assertThat(e.get("local").get("at").asText()).matches(local);
    }
  }

  @Test
  void describe_shows_the_instance_and_its_whole_history() {
    Instance d = dead("ops-a", "2026-02-01");
    Cli.Result r = Cli.run(env.vars(), "describe", "instance", Long.toString(d.id()));
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("status:")
        .contains("DEAD")
        .contains("created PENDING by trigger")
        .contains("claimed by worker-7 (attempt 1)")
        .contains("failed (attempt 1): search API returned 503")
        .contains(
            "declared DEAD by retry (no retry left or allowed): no retry allowed: policy NONE");

    JsonNode json =
        Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(d.id())).json();
    assertThat(json.get("instance").get("id").asLong()).isEqualTo(d.id());
    assertThat(json.get("events").findValuesAsText("to"))
        .containsExactly("PENDING", "RUNNING", "FAILED", "DEAD");

    Cli.Result missing = Cli.run(env.vars(), "describe", "instance", "987654");
    assertThat(missing.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(missing.err()).contains("no instance with id 987654");
  }

  /**
   * Two attempts, as workers would leave them: attempt 1 checkpointed, posted (recorded) and
   * started a charge it never recorded, then lost its lease; attempt 2 checkpointed and failed;
   * then the instance went DEAD.
   */
  private static Instance deadWithProgress(String task, String day) {
    Instance i = pending(task, day);
    Instance first = leases.claim(List.of(i.id()), "worker-1").get(0);
    Lease one = new Lease(i.id(), first.attempt());
    resume.saveCheckpoint(one, "worker-1", "{\"next\":40,\"of\":120}");
    resume.startEffect(one, "worker-1", "post");
    resume.recordEffect(one, "worker-1", "post", "msg-17");
    resume.startEffect(one, "worker-1", "charge");
    assertThat(leases.release(one, "worker-1", "lost")).isTrue();
    Instance second = leases.claim(List.of(i.id()), "worker-2").get(0);
    Lease two = new Lease(i.id(), second.attempt());
    resume.saveCheckpoint(two, "worker-2", "{\"next\":80,\"of\":120}");
    leases.complete(two, Outcome.failure("model quota exceeded", false), "worker-2");
    Instance failed = instances.find(i.id()).orElseThrow();
    assertThat(retries.markDead(failed, 1L, "retry", "no retry left", false, retryLeader)).isTrue();
    return instances.find(i.id()).orElseThrow();
  }

  @Test
  void describe_shows_each_attempts_last_checkpoint_and_its_effects() {
    Instance d = deadWithProgress("ops-a", "2026-02-02");
    Cli.Result r = Cli.run(env.vars(), "describe", "instance", Long.toString(d.id()));
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("Checkpoints (the last of each attempt):")
        .containsPattern("1 +\\S+Z +\\S+\\+00:00 +1 +worker-1 +\\{\"next\":40,\"of\":120\\}")
        .containsPattern("2 +\\S+Z +\\S+\\+00:00 +1 +worker-2 +\\{\"next\":80,\"of\":120\\}")
        .contains("Effects:")
        .containsPattern("1 +post +done +\\S+Z +\\S+\\+00:00 +worker-1 +msg-17")
        .containsPattern(
            "1 +charge +started, not recorded \\(in doubt\\) +\\S+Z +\\S+\\+00:00 +worker-1");

    JsonNode json =
        Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(d.id())).json();
    assertThat(json.get("checkpoints").findValuesAsText("stateJson"))
        .containsExactly("{\"next\":40,\"of\":120}", "{\"next\":80,\"of\":120}");
    assertThat(json.get("effects").findValuesAsText("key")).containsExactly("charge", "post");

    Instance plain = pending("ops-b", "2026-02-02");
    assertThat(Cli.run(env.vars(), "describe", "instance", Long.toString(plain.id())).out())
        .contains("Checkpoints: none")
        .contains("Effects: none");
  }

  @Test
  void rerun_keeps_checkpoints_and_effects_by_default_and_discards_them_from_scratch() {
    Instance d = deadWithProgress("ops-c", "2026-04-02");
    Cli.Result kept = Cli.run(env.vars(), "rerun", Long.toString(d.id()));
    assertThat(kept.code()).as(kept.toString()).isZero();
    assertThat(kept.out()).contains("resuming from its checkpoints and effects");
    assertThat(instances.checkpoints(d.id())).hasSize(2);
    assertThat(instances.effects(d.id())).hasSize(2);

    Instance again = instances.find(d.id()).orElseThrow();
    Instance running = leases.claim(List.of(again.id()), "worker-3").get(0);
    leases.complete(
        new Lease(again.id(), running.attempt()), Outcome.success("ok", false, null), "worker-3");

    Cli.Result fresh =
        Cli.run(env.vars(), "rerun", Long.toString(d.id()), "--from-scratch", "-o", "json");
    assertThat(fresh.code()).as(fresh.toString()).isZero();
    assertThat(fresh.json().get("fromScratch").asBoolean()).isTrue();
    assertThat(instances.checkpoints(d.id())).isEmpty();
    assertThat(instances.effects(d.id())).isEmpty();
    assertThat(instances.events(d.id()))
        .last()
        .satisfies(
            e ->
                assertThat(e.reason())
                    .isEqualTo(
                        "re-run requested; from scratch: discarded 2 checkpoints and 2 effects"
                            + " (charge, post)"));
  }

  @Test
  void describe_shows_the_latest_progress_and_says_when_it_is_an_earlier_attempts() {
    Instance p = pending("ops-b", "2026-05-17");
    Instance claimed = leases.claim(List.of(p.id()), "worker-7").get(0);
    Lease lease = new Lease(p.id(), claimed.attempt());
    Instant reported = claimed.startedAt();
    leases.heartbeat(
        "worker-7", List.of(lease), Map.of(lease, new Progress("read 40 of 120 files", reported)));

    Cli.Result r = Cli.run(env.vars(), "describe", "instance", Long.toString(p.id()));
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .containsPattern(
            "progress:?\\s+read 40 of 120 files \\(reported "
                + reported
                + " \\(\\S+\\+00:00\\)\\)");
    JsonNode json =
        Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(p.id())).json();
    assertThat(json.get("instance").get("progress").asText()).isEqualTo("read 40 of 120 files");

    // Released and claimed again: until the new attempt reports, the old report is shown as such.
    assertThat(leases.release(lease, "worker-7", "shutdown")).isTrue();
    leases.claim(List.of(p.id()), "worker-8");
    assertThat(Cli.run(env.vars(), "describe", "instance", Long.toString(p.id())).out())
        .containsPattern(
            "read 40 of 120 files \\(reported "
                + reported
                + " \\(\\S+\\+00:00\\), by an earlier attempt\\)");
  }

  @Test
  void why_tells_every_decision_about_a_window_in_plain_words() {
    Instance d = dead("ops-c", "2026-03-01");
    windows.recordDecisions(
        List.of(
            new Decision(
                "ops-c", "2026-03-01", d.id(), "trigger", "window exists, status RUNNING")),
        triggerLeader);
    windows.create(
        List.of(
            dev.carillon.model.instance.NewInstance.skipped(
                "ops-c",
                new dev.carillon.model.schedule.Window(
                    "2026-03-02",
                    java.time.Instant.parse("2026-03-02T00:00:00Z"),
                    java.time.Instant.parse("2026-03-03T00:00:00Z")),
                java.time.Instant.parse("2026-03-02T08:00:00Z"),
                Origin.SCHEDULE,
                Duration.ofMinutes(5),
                "previous window still RUNNING")),
        "trigger");

    Cli.Result r = Cli.run(env.vars(), "why", "ops-c", "2026-03-01");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("created PENDING by trigger: created for window 2026-03-01 (SCHEDULE)")
        .contains("claimed by worker-7 (attempt 1)")
        .contains("failed (attempt 1): search API returned 503")
        .contains("declared DEAD by retry")
        .contains("decided by trigger without creating anything: window exists, status RUNNING");

    Cli.Result skipped = Cli.run(env.vars(), "why", "ops-c", "2026-03-02");
    assertThat(skipped.out())
        .contains("recorded as SKIPPED by trigger: previous window still RUNNING");

    JsonNode json = Cli.run(env.vars(), "why", "ops-c", "2026-03-01", "-o", "json").json();
    assertThat(json.get("events")).hasSize(5);
    assertThat(json.get("events").get(0).get("text").asText()).startsWith("created PENDING");

    Cli.Result nothing = Cli.run(env.vars(), "why", "ops-c", "1999-01-01");
    assertThat(nothing.code()).isZero();
    assertThat(nothing.out()).contains("Nothing was ever decided").contains("DAILY windows");
    assertThat(Cli.run(env.vars(), "why", "no-such-task", "2026-03-01").code())
        .isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void rerun_brings_a_dead_instance_back_to_pending_keeps_its_origin_and_publishes_it() {
    Instance d = dead("ops-b", "2026-04-01");
    Cli.Result r = Cli.run(env.vars(), "rerun", Long.toString(d.id()), "--reason", "API fixed");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .contains("DEAD -> PENDING, resuming from its checkpoints and effects, published");

    Instance after = instances.find(d.id()).orElseThrow();
    assertThat(after.status()).isEqualTo(InstanceStatus.PENDING);
    assertThat(after.origin()).isEqualTo(Origin.SCHEDULE);
    assertThat(after.attempt()).isEqualTo(d.attempt()); // the fencing token never goes back
    assertThat(after.retryCount()).isZero();
    assertThat(after.failReason()).isNull();
    assertThat(after.dispatchedAt()).isNotNull();
    assertThat(instances.events(d.id()))
        .last()
        .satisfies(
            e -> {
              assertThat(e.actor()).isEqualTo("schedctl:ops-tester");
              assertThat(e.reason()).isEqualTo("re-run requested: API fixed");
            });
    List<InstanceMessage> published = KafkaProbe.instanceMessages();
    assertThat(published)
        .anySatisfy(
            m -> {
              assertThat(m.instanceId()).isEqualTo(d.id());
              assertThat(m.windowKey()).isEqualTo("2026-04-01");
            });

    Cli.Result again = Cli.run(env.vars(), "rerun", Long.toString(d.id()));
    assertThat(again.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(again.err()).contains("is PENDING; only finished instances");
  }

  @Test
  void cancel_stops_a_live_instance_and_refuses_a_finished_one() {
    Instance p = pending("ops-b", "2026-05-01");
    Cli.Result r = Cli.run(env.vars(), "cancel", Long.toString(p.id()), "-o", "json");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.json().get("status").asText()).isEqualTo("CANCELLED");
    assertThat(instances.find(p.id()).orElseThrow().status()).isEqualTo(InstanceStatus.CANCELLED);

    Cli.Result again = Cli.run(env.vars(), "cancel", Long.toString(p.id()));
    assertThat(again.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(again.err()).contains("is CANCELLED and cannot be cancelled (it has finished)");
    assertThat(Cli.run(env.vars(), "cancel", "424242").code()).isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void pause_and_resume_flip_the_flag_once_and_say_so() {
    Cli.Result p = Cli.run(env.vars(), "pause", "ops-c");
    assertThat(p.code()).as(p.toString()).isZero();
    assertThat(p.out()).contains("task 'ops-c' is now paused");
    assertThat(tasks.find("ops-c").orElseThrow().paused()).isTrue();
    assertThat(Cli.run(env.vars(), "pause", "ops-c").out()).contains("was already paused");

    Cli.Result r = Cli.run(env.vars(), "resume", "ops-c", "-o", "json");
    assertThat(r.json().get("changed").asBoolean()).isTrue();
    assertThat(tasks.find("ops-c").orElseThrow().paused()).isFalse();

    Cli.Result missing = Cli.run(env.vars(), "pause", "ghost");
    assertThat(missing.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(missing.err()).contains("no task 'ghost'");
  }

  @Test
  void why_and_describe_say_that_a_pending_instance_waits_for_a_worker_and_which_one() {
    tasks.applyAll(List.of(Tasks.daily("ops-gpu").queue("gpu").handler("summarize").build()));
    Instance waiting = pending("ops-gpu", "2026-04-01");
    PresenceStore presence = new PresenceStore(env.db().dsl());
    presence.register("w-cpu", java.util.Set.of("default"), java.util.Set.of("summarize"), true, 4);
    try {
      String reason =
          "waiting for a worker: no worker serves queue gpu with handler summarize (handler"
              + " summarize is on w-cpu, serving queues default)";
      Cli.Result describe =
          Cli.run(env.vars(), "describe", "instance", Long.toString(waiting.id()));
      assertThat(describe.code()).as(describe.toString()).isZero();
      assertThat(describe.out()).contains("PENDING (" + reason + ")").contains("gpu");
      JsonNode json =
          Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(waiting.id()))
              .json();
      assertThat(json.get("queue").asText()).isEqualTo("gpu");
      assertThat(json.get("waiting").asText()).startsWith("no worker serves queue gpu");

      Cli.Result why = Cli.run(env.vars(), "why", "ops-gpu", "2026-04-01");
      assertThat(why.code()).as(why.toString()).isZero();
      assertThat(why.out()).contains("now  PENDING, " + reason);

      presence.register("w-gpu", java.util.Set.of("gpu"), java.util.Set.of("summarize"), true, 4);
      assertThat(Cli.run(env.vars(), "why", "ops-gpu", "2026-04-01").out())
          .as("served now: nothing to explain")
          .doesNotContain("waiting for a worker");
      assertThat(Cli.run(env.vars(), "describe", "instance", Long.toString(waiting.id())).out())
          .doesNotContain("waiting for a worker");
    } finally {
      presence.remove("w-cpu");
      presence.remove("w-gpu");
    }
  }

  @Test
  void quarantine_lists_the_rows_a_scanner_set_aside_and_clear_puts_one_back() {
    Instance i = pending("ops-b", "2026-06-17");
    Instance running = leases.claim(List.of(i.id()), "worker-7").get(0);
    leases.complete(
        new Lease(i.id(), running.attempt()), Outcome.failure("malformed", false), "worker-7");
    Instance failed = instances.find(i.id()).orElseThrow();
    assertThat(
            retries.quarantine(
                failed, "decision", "IllegalArgumentException: x", "retry", retryLeader))
        .isTrue();

    Cli.Result list = Cli.run(env.vars(), "quarantine", "list");
    assertThat(list.code()).as(list.toString()).isZero();
    assertThat(list.out()).contains(Long.toString(i.id())).contains("ops-b").contains("FAILED");

    Cli.Result clear =
        Cli.run(
            env.vars(), "quarantine", "clear", Long.toString(i.id()), "--reason", "window fixed");
    assertThat(clear.code()).as(clear.toString()).isZero();
    assertThat(instances.quarantined(10)).extracting(Instance::id).doesNotContain(i.id());
    assertThat(instances.events(i.id()))
        .extracting(InstanceEvent::reason)
        .anySatisfy(r -> assertThat(r).contains("quarantined by the decision scanner"))
        .anySatisfy(
            r -> assertThat(r).contains("quarantine cleared: cleared by operator: window fixed"));
    assertThat(Cli.run(env.vars(), "quarantine", "clear", Long.toString(i.id())).code())
        .as("nothing left to clear")
        .isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void a_quarantined_row_cancelled_and_rerun_is_no_longer_set_aside() {
    Instance i = pending("ops-b", "2026-06-18");
    Instance running = leases.claim(List.of(i.id()), "worker-7").get(0);
    leases.complete(
        new Lease(i.id(), running.attempt()), Outcome.failure("malformed", false), "worker-7");
    Instance failed = instances.find(i.id()).orElseThrow();
    assertThat(
            retries.quarantine(failed, "decision", "IllegalStateException", "retry", retryLeader))
        .isTrue();
    Instance cancelled = instances.cancel(failed, "ops", "stuck").orElseThrow();
    assertThat(instances.quarantined(10_000)).extracting(Instance::id).contains(i.id());

    assertThat(instances.rerun(cancelled, "ops", "fixed")).isPresent();

    assertThat(instances.quarantined(10_000)).extracting(Instance::id).doesNotContain(i.id());
  }
}
