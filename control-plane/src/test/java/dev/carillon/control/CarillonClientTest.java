package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.client.CarillonApiException;
import dev.carillon.client.CarillonClient;
import dev.carillon.client.CarillonTimeoutException;
import dev.carillon.client.CarillonUnreachableException;
import dev.carillon.client.InstanceQuery;
import dev.carillon.client.TaskSpec;
import dev.carillon.client.model.ApplyResult;
import dev.carillon.client.model.BackfillRequest;
import dev.carillon.client.model.ConfigKeyView;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.NextFiresView;
import dev.carillon.client.model.RerunDeadRequest;
import dev.carillon.client.model.RetryPlanRequest;
import dev.carillon.client.model.RunResult;
import dev.carillon.client.model.TaskView;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.store.RetryStore;
import dev.carillon.testsupport.Tasks;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link CarillonClient} against the real API over HTTP on devstack: every call it makes, its
 * cursor-following lists, its typed errors, its timeouts and its wait for an outcome.
 */
@ExtendWith(DevStackExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CarillonClientTest {
  private static ApiFixture api;
  private static CarillonClient operator;
  private static CarillonClient admin;
  private static CarillonClient viewer;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_client");
    operator = client(api.operatorToken);
    admin = client(api.admin);
    viewer = client(api.viewer);
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  private static CarillonClient client(String token) {
    return CarillonClient.builder()
        .fromEnvironment(
            Map.of(
                CarillonClient.ENV_URL,
                "http://127.0.0.1:" + api.server.port() + "/api/v1/",
                CarillonClient.ENV_TOKEN,
                token))
        .requestTimeout(Duration.ofSeconds(20))
        .pollBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .build();
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

  @Test
  void a_recurring_and_a_one_shot_task_are_applied_read_paused_resumed_and_deleted() {
    ApplyResult applied =
        operator.apply(
            TaskSpec.cron("client-daily", "noop", "0 0 8 * * ?", ZoneId.of("Europe/Berlin"))
                .window("DAILY")
                .timeout(Duration.ofMinutes(10))
                .params(Map.of("user", "u-42")),
            TaskSpec.once("client-once", "noop", Instant.parse("2026-04-01T09:30:15.250Z")));
    assertThat(applied.tasks())
        .extracting(ApplyResult.Applied::outcome)
        .containsExactly("created", "created");

    TaskView daily = viewer.task("client-daily");
    assertThat(daily.trigger().cron()).isEqualTo("0 0 8 * * ?");
    assertThat(daily.zone()).isEqualTo("Europe/Berlin");
    assertThat(daily.params().get("user").asText()).isEqualTo("u-42");
    assertThat(daily.nextFire().utc()).isEqualTo("2026-03-30T06:00:00Z");

    // A one-shot fires at its second (rounded up), once: an AT trigger, shown in UTC.
    TaskView once = viewer.task("client-once");
    assertThat(once.trigger().kind()).isEqualTo("AT");
    assertThat(once.trigger().cron()).isNull();
    assertThat(once.trigger().at()).isEqualTo(Instant.parse("2026-04-01T09:30:16Z"));
    assertThat(once.trigger().text()).isEqualTo("once at 2026-04-01T09:30:16Z");
    assertThat(once.window()).isEqualTo("EVERY_FIRE");
    assertThat(once.catchup()).isEqualTo("1h");
    assertThat(once.nextFire().utc()).isEqualTo("2026-04-01T09:30:16Z");
    NextFiresView onceNext = viewer.next("client-once", 5);
    assertThat(onceNext.cron()).isNull();
    assertThat(onceNext.trigger()).isEqualTo("once at 2026-04-01T09:30:16Z");
    assertThat(onceNext.fires())
        .extracting(f -> f.utc().toString())
        .containsExactly("2026-04-01T09:30:16Z");

    assertThat(operator.pause("client-daily").changed()).isTrue();
    assertThat(viewer.task("client-daily").paused()).isTrue();
    assertThat(operator.resume("client-daily").paused()).isFalse();

    assertThat(operator.delete("client-once", false, "done with it").cancelled()).isEmpty();
    CarillonApiException gone = catchApi(() -> viewer.task("client-once"));
    assertThat(gone.status()).isEqualTo(404);
    assertThat(gone.field()).contains("id");
    assertThat(gone.value()).contains("client-once");
    assertThat(gone.getMessage()).contains("was deleted at");
  }

  @Test
  void a_refused_spec_is_a_typed_error_naming_field_and_value_and_nothing_is_applied() {
    CarillonApiException e =
        catchApi(
            () ->
                operator.apply(
                    TaskSpec.cron("client-good", "noop", "0 0 8 * * ?", ZoneId.of("UTC")),
                    TaskSpec.cron("client-bad", "noop", "0 61 8 * * ?", ZoneId.of("UTC"))));
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.isClientError()).isTrue();
    assertThat(e.field()).contains("schedule.cron");
    assertThat(e.value()).contains("0 61 8 * * ?");
    assertThat(e.method()).isEqualTo("POST");
    assertThat(catchApi(() -> viewer.task("client-good")).status()).isEqualTo(404);

    CarillonApiException forbidden = catchApi(() -> viewer.pause("client-good"));
    assertThat(forbidden.status()).isEqualTo(403);
  }

  @Test
  void a_yaml_task_file_is_applied_as_schedctl_applies_it_and_a_dry_run_changes_nothing() {
    String yaml =
        "tasks:\n  - id: client-yaml\n    handler: noop\n    schedule: { cron: \"0 0 9 * * ?\", zone: UTC }\n";
    assertThat(operator.applyYaml(yaml, true).tasks().get(0).outcome()).isEqualTo("valid");
    assertThat(catchApi(() -> viewer.task("client-yaml")).status()).isEqualTo(404);
    assertThat(operator.applyYaml(yaml, false).tasks().get(0).outcome()).isEqualTo("created");
    assertThat(
            operator
                .put(TaskSpec.cron("client-yaml", "noop", "0 0 10 * * ?", ZoneId.of("UTC")))
                .tasks()
                .get(0)
                .outcome())
        .isEqualTo("changed");
  }

  @Test
  void run_now_with_a_key_twice_is_one_instance_and_listing_follows_every_cursor() {
    api.apply(Tasks.daily("client-run").build());
    RunResult first = operator.runNow("client-run", null, "order-7");
    RunResult again = operator.runNow("client-run", null, "order-7");
    assertThat(first.created()).isTrue();
    assertThat(again.created()).isFalse();
    assertThat(again.instance().id()).isEqualTo(first.instance().id());
    List<Long> ids = new ArrayList<>();
    ids.add(first.instance().id());
    for (int i = 0; i < 6; i++) {
      ids.add(operator.runNow("client-run").instance().id());
    }
    InstanceQuery q =
        InstanceQuery.all().withTask("client-run").withOrigin("MANUAL").withPageSize(3);
    // Seven instances in pages of three: three requests, each row once.
    List<Long> listed = viewer.listInstances(q).map(InstanceView::id).toList();
    assertThat(listed).containsExactlyInAnyOrderElementsOf(ids).doesNotHaveDuplicates();
    assertThat(viewer.listInstances(q).limit(2)).hasSize(2);
    assertThat(viewer.instances(q, null).nextCursor()).isNotNull();
  }

  @Test
  void dead_instances_are_listed_and_rerun_and_events_and_why_are_read() {
    api.apply(Tasks.daily("client-dead").build());
    List<Long> dead = new ArrayList<>();
    // The retry leader's write: it carries the retry epoch, taken here for the test.
    Fence retryLeader = new EpochStore(api.db.dsl()).begin("retry", "test");
    for (String day : List.of("2026-03-26", "2026-03-27", "2026-03-28")) {
      Instance failed = finished("client-dead", day, false);
      assertThat(
              new RetryStore(api.db.dsl())
                  .markDead(failed, null, "retry:test", "no retry", false, retryLeader))
          .isTrue();
      dead.add(failed.id());
    }
    finished("client-dead", "2026-03-25", true);
    assertThat(viewer.dead("client-dead").map(InstanceView::id).toList())
        .containsExactlyInAnyOrderElementsOf(dead);
    assertThat(
            operator
                .rerunDead(new RerunDeadRequest("client-dead", null, null, "fixed", 10, null, null))
                .matched())
        .isEqualTo(3);
    assertThat(operator.rerun(dead.get(0), "one more").instance().status()).isEqualTo("PENDING");
    assertThat(viewer.events(dead.get(0))).extracting(e -> e.to()).contains("DEAD", "PENDING");
    assertThat(viewer.why(dead.get(0)).lines()).isNotEmpty();
    CarillonApiException refused = catchApi(() -> operator.rerun(dead.get(0), null));
    assertThat(refused.status()).isEqualTo(409);
    assertThat(refused.field()).contains("status");
    assertThat(operator.cancel(dead.get(0), "no longer needed").instance().status())
        .isEqualTo("CANCELLED");
  }

  @Test
  void await_outcome_returns_the_final_instance_and_gives_up_at_its_deadline() throws Exception {
    api.apply(Tasks.daily("client-wait").build());
    RunResult run = operator.runNow("client-wait");
    long id = run.instance().id();

    CarillonTimeoutException late =
        (CarillonTimeoutException)
            org.assertj.core.api.Assertions.catchThrowable(
                () -> viewer.awaitOutcome(id, Duration.ofMillis(300)));
    assertThat(late).isNotNull();
    assertThat(late.lastSeen().status()).isEqualTo("PENDING");

    CompletableFuture<InstanceView> waiting =
        CompletableFuture.supplyAsync(() -> viewer.awaitOutcome(id, Duration.ofSeconds(60)));
    // The run goes RUNNING (not final: still waiting), then SUCCESS.
    Instance claimed = api.leases.claim(List.of(id), "w-client").get(0);
    assertThat(waiting).isNotDone();
    assertThat(
            api.leases.complete(
                new Lease(id, claimed.attempt()), Outcome.success("all good", false, null), "w"))
        .isTrue();
    InstanceView done = waiting.get(60, TimeUnit.SECONDS);
    assertThat(done.status()).isEqualTo("SUCCESS");
    assertThat(done.resultSummary()).isEqualTo("all good");
  }

  @Test
  void config_is_set_read_and_unset_by_an_admin_and_retry_plan_and_whoami_answer() {
    assertThat(viewer.whoami().role()).isEqualTo("viewer");
    String key = "retry/client-config";
    assertThat(
            catchApi(() -> operator.setConfig(key, "{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}"))
                .status())
        .isEqualTo(403);
    CarillonApiException bad =
        catchApi(
            () ->
                admin.setConfig(
                    key, "{\"policy\":\"EXPONENTIAL\",\"initial\":\"-5m\",\"maxRetries\":3}"));
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.value()).isPresent();
    admin.setConfig(
        key, "{\"policy\":\"exponential\",\"initial\":\"5m\",\"multiplier\":2,\"maxRetries\":3}");
    ConfigKeyView set = viewer.config(key);
    assertThat(set.inForce()).isNotNull();
    assertThat(set.inForce().actor()).isEqualTo("api:ada");
    assertThat(viewer.config().entries()).extracting(e -> e.key()).contains(key);
    assertThat(admin.unsetConfig(key).value()).isNull();
    assertThat(viewer.config(key).inForce()).isNull();

    assertThat(viewer.retryPlan(new RetryPlanRequest("1h", "5m", 2.0, null)).retries())
        .isEqualTo(3);
  }

  @Test
  void backfill_and_preview_go_through_the_same_rules_as_the_api() {
    api.apply(Tasks.daily("client-backfill").build());
    assertThat(
            operator
                .backfill("client-backfill", new BackfillRequest("2026-03-20", "2026-03-23", null))
                .windows())
        .isEqualTo(3);
    CarillonApiException fiveFields = catchApi(() -> viewer.preview("0 8 * * *", null, null, 3));
    assertThat(fiveFields.field()).contains("cron");
    assertThat(viewer.preview("0 0 8 * * ?", "Europe/Berlin", null, 2).fires()).hasSize(2);
  }

  @Test
  void an_address_without_a_server_is_unreachable() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    CarillonClient c =
        CarillonClient.builder().baseUrl("http://127.0.0.1:" + port).token("crl_x").build();
    assertThatThrownBy(c::whoami)
        .isInstanceOf(CarillonUnreachableException.class)
        .hasMessageContaining("cannot reach the Carillon API at http://127.0.0.1:" + port);
  }

  @Test
  void a_server_that_never_answers_is_given_up_on_at_the_request_timeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0)) {
      CompletableFuture<Socket> accepted =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return silent.accept();
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      CarillonClient c =
          CarillonClient.builder()
              .baseUrl("http://127.0.0.1:" + silent.getLocalPort())
              .requestTimeout(Duration.ofMillis(500))
              .build();
      long t0 = System.nanoTime();
      assertThatThrownBy(c::whoami)
          .isInstanceOf(CarillonUnreachableException.class)
          .hasMessageContaining("did not answer within PT0.5S");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
      accepted.get(10, TimeUnit.SECONDS).close();
    }
  }

  @Test
  void a_builder_without_a_url_or_with_a_bad_one_says_what_to_set() {
    assertThatThrownBy(() -> CarillonClient.builder().fromEnvironment(Map.of()).build())
        .hasMessageContaining("CARILLON_API_URL");
    assertThatThrownBy(() -> CarillonClient.builder().baseUrl("ftp://x"))
        .hasMessageContaining("must start with http:// or https://");
    assertThatThrownBy(() -> CarillonClient.builder().requestTimeout(Duration.ZERO))
        .hasMessageContaining("requestTimeout must be more than 0");
  }

  private static CarillonApiException catchApi(Runnable call) {
    try {
      call.run();
    } catch (CarillonApiException e) {
      return e;
    }
    throw new AssertionError("expected the API to refuse the call");
  }
}
