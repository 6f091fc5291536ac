package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.store.TaskStore;
import dev.carillon.testsupport.RecordedRuns;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lease from evidence: P99 of the recent successes x 1.5, with the sample size. */
class SuggestTimeoutCommandTest {
  private static ApiEnv api;
  private static Cli.Env env;

  @BeforeAll
  static void setUp() {
    api = ApiEnv.start("schedctl_suggest");
    env = api.db;
    new TaskStore(env.db().dsl())
        .applyAll(
            List.of(
                Tasks.daily("report").timeout(Duration.ofMinutes(2)).build(),
                Tasks.daily("young").build()));
    // 200 runs of 1, 2, ... 200 seconds, recorded in no particular order.
    List<Duration> durations = new ArrayList<>(RecordedRuns.seconds(200));
    Collections.shuffle(durations, new Random(42));
    RecordedRuns.record(env.db(), "report", durations);
    RecordedRuns.record(env.db(), "young", RecordedRuns.seconds(5));
  }

  @AfterAll
  static void tearDown() throws java.io.IOException {
    api.close();
  }

  @Test
  void two_hundred_runs_of_1_to_200_s_suggest_p99_198s_times_one_and_a_half() {
    Cli.Result r = Cli.run(env.vars(), "suggest-timeout", "report");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "Task report: suggested timeout 4m57s = P99 3m18s x 1.5 over its last 200 successful"
                + " run(s).\n"
                + "Its timeout now is 2m: below the P99, so about one run in a hundred is stopped"
                + " at its deadline and runs again.\n");
  }

  @Test
  void as_json_with_the_sample_size_and_the_current_timeout() {
    Cli.Result r = Cli.run(env.vars(), "-o", "json", "suggest-timeout", "report");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.json().get("taskId").asText()).isEqualTo("report");
    assertThat(r.json().get("sampleSize").asInt()).isEqualTo(200);
    assertThat(r.json().get("p99").asText()).isEqualTo("PT3M18S");
    assertThat(r.json().get("suggestedTimeout").asText()).isEqualTo("PT4M57S");
    assertThat(r.json().get("currentTimeout").asText()).isEqualTo("PT2M");
    assertThat(r.json().get("currentBelowP99").asBoolean()).isTrue();
  }

  @Test
  void through_the_api_the_answer_is_the_same() {
    Cli.Result direct = Cli.run(env.vars(), "suggest-timeout", "report");
    Cli.Result remote = Cli.run(api.apiOnly(api.viewerToken), "suggest-timeout", "report");
    assertThat(remote.code()).as(remote.toString()).isZero();
    assertThat(remote.out()).isEqualTo(direct.out());
    Cli.Result young = Cli.run(api.apiOnly(api.viewerToken), "suggest-timeout", "young");
    assertThat(young.out()).startsWith("No suggestion: task 'young' has 5 successful run(s)");
    Cli.Result unknown = Cli.run(api.apiOnly(api.viewerToken), "suggest-timeout", "nope");
    assertThat(unknown.code()).isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void a_smaller_window_uses_the_latest_runs_only() {
    // The last 100 recorded runs (by finish time) are the shuffled list's last 100 durations.
    Cli.Result r =
        Cli.run(env.vars(), "-o", "json", "suggest-timeout", "report", "--window", "100");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.json().get("sampleSize").asInt()).isEqualTo(100);
    assertThat(r.json().get("window").asInt()).isEqualTo(100);
  }

  @Test
  void too_few_runs_give_no_suggestion_and_say_how_many_are_needed() {
    Cli.Result r = Cli.run(env.vars(), "suggest-timeout", "young");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out())
        .isEqualTo(
            "No suggestion: task 'young' has 5 successful run(s) in its latest 1000; at least 20"
                + " are needed for a P99.\n");
  }

  @Test
  void an_unknown_task_or_a_bad_window_is_bad_input() {
    Cli.Result unknown = Cli.run(env.vars(), "suggest-timeout", "nope");
    assertThat(unknown.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(unknown.err()).contains("no task 'nope'");
    Cli.Result window = Cli.run(env.vars(), "suggest-timeout", "report", "--window", "0");
    assertThat(window.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(window.err()).contains("--window must be 1..100000, was 0");
  }
}
