package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.client.model.RunResult;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.Origin;
import dev.carillon.store.InstanceFilter;
import dev.carillon.testsupport.Tasks;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Run-now's idempotency: one instance per (task, Idempotency-Key), decided by the UNIQUE (task,
 * window) index, never by a read first, so racing callers cannot create two.
 */
@ExtendWith(DevStackExtension.class)
class RunNowTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_run_now");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  private static Response run(String task, String key) {
    return api.call(
        "POST",
        "/api/v1/tasks/" + task + "/runs",
        api.operatorToken,
        null,
        key == null ? Map.of() : Map.of("Idempotency-Key", key));
  }

  private static List<Instance> manual(String task) {
    return api.operator.page(
        new InstanceFilter(task, Set.of(), Set.of(Origin.MANUAL), null, null), null, 100);
  }

  @Test
  void the_same_key_twice_is_one_instance_and_no_key_twice_is_two() {
    api.apply(Tasks.daily("run-twice").build());
    Response first = run("run-twice", "order-42");
    Response second = run("run-twice", "order-42");
    assertThat(first.status()).isEqualTo(201);
    assertThat(second.status()).isEqualTo(200);
    RunResult a = first.as(RunResult.class);
    RunResult b = second.as(RunResult.class);
    assertThat(a.created()).isTrue();
    assertThat(b.created()).isFalse();
    assertThat(b.instance().id()).isEqualTo(a.instance().id());
    assertThat(manual("run-twice")).hasSize(1);

    Response third = run("run-twice", null);
    Response fourth = run("run-twice", null);
    assertThat(third.status()).isEqualTo(201);
    assertThat(fourth.status()).isEqualTo(201);
    assertThat(third.as(RunResult.class).instance().id())
        .isNotEqualTo(fourth.as(RunResult.class).instance().id());
    assertThat(manual("run-twice")).hasSize(3);
  }

  @Test
  void a_key_belongs_to_its_task() {
    api.apply(Tasks.daily("run-a").build(), Tasks.daily("run-b").build());
    long a = run("run-a", "shared-key").as(RunResult.class).instance().id();
    long b = run("run-b", "shared-key").as(RunResult.class).instance().id();
    assertThat(a).isNotEqualTo(b);
  }

  @Test
  void twenty_callers_racing_with_one_key_make_exactly_one_instance() throws Exception {
    api.apply(Tasks.daily("run-race").build());
    int n = 20;
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      CountDownLatch ready = new CountDownLatch(n);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Response>> calls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        calls.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return run("run-race", "race-key");
                }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      go.countDown();
      List<Response> responses = new ArrayList<>();
      for (Future<Response> f : calls) {
        responses.add(f.get(60, TimeUnit.SECONDS));
      }
      assertThat(responses).extracting(Response::status).containsOnly(201, 200);
      assertThat(responses).filteredOn(r -> r.status() == 201).hasSize(1);
      assertThat(responses)
          .extracting(r -> r.as(RunResult.class).instance().id())
          .containsOnly(manual("run-race").get(0).id());
      assertThat(manual("run-race")).hasSize(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void params_are_kept_with_the_instance_and_shown_beside_its_local_times() {
    api.apply(
        Tasks.daily("run-params")
            .cron(
                "0 0 8 * * ?",
                java.time.ZoneId.of("Europe/Berlin"),
                dev.carillon.model.schedule.WindowKind.DAILY)
            .paramsJson("{\"user\":\"u-1\",\"lang\":\"en\"}")
            .build());
    Response r =
        api.call(
            "POST",
            "/api/v1/tasks/run-params/runs",
            api.operatorToken,
            "{\"params\":{\"user\":\"u-2\"}}");
    assertThat(r.status()).as(r.toString()).isEqualTo(201);
    RunResult run = r.as(RunResult.class);
    assertThat(run.instance().paramsOverride().toString()).isEqualTo("{\"user\":\"u-2\"}");
    assertThat(api.operator.find(run.instance().id()).orElseThrow().paramsOverride())
        .isEqualTo("{\"user\":\"u-2\"}");
    // The fixture's clock is 2026-03-29T12:00:00Z, 14:00 in Berlin (summer time since 02:00).
    assertThat(run.instance().zone()).isEqualTo("Europe/Berlin");
    assertThat(run.instance().local())
        .containsEntry("scheduledAt", "2026-03-29T14:00:00+02:00")
        .containsEntry("windowStart", "2026-03-29T00:00:00+01:00");
    Response got = api.call("GET", "/api/v1/instances/" + run.instance().id(), api.viewer);
    assertThat(got.json().get("paramsOverride").get("user").asText()).isEqualTo("u-2");
  }
}
