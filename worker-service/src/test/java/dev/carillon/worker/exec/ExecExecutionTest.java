package dev.carillon.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.Checkpoint;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.RunSpec;
import dev.carillon.store.Outcome;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.MemoryRecords;
import dev.carillon.worker.run.RunRecords;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Exec agents as real processes (sh, and python3 where present), without a database. */
@Timeout(60)
class ExecExecutionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final Counter ignored = meters.counter("ignored");
  private final Counter abandoned = meters.counter("abandoned");
  private ExecAgents agents =
      agents(Map.of("PATH", System.getenv("PATH"), "SECRET", "s3cr3t", "DB_PASSWORD", "hunter2"));

  private ExecAgents agents(Map<String, String> workerEnv) {
    return new ExecAgents(
        workerEnv, ExecAgents.findSetsid(), ExecLimits.DEFAULTS, 4096, ignored, abandoned, "test");
  }

  @AfterEach
  void close() {
    agents.close();
  }

  private AgentExecution execution(String paramsJson, FixedContext context) {
    return execution(paramsJson, context, MemoryRecords.empty());
  }

  private AgentExecution execution(String paramsJson, FixedContext context, MemoryRecords records) {
    return agents.execution(new RunSpec("exec-test", "exec", paramsJson, 1), context, records);
  }

  private Outcome run(String paramsJson) {
    return execution(paramsJson, new FixedContext(paramsJson)).execute();
  }

  /** Params running {@code script} with /bin/sh -c, and the given extra exec settings. */
  private static String sh(String script, String extra) {
    try {
      return "{\"exec\":{\"shell\":true,\"command\":["
          + JSON.writeValueAsString(script)
          + "]"
          + extra
          + "}}";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static String sh(String script) {
    return sh(script, "");
  }

  @Test
  void exit_zero_with_a_result_line_is_success_with_its_summary_and_uri_and_progress_is_reported() {
    FixedContext context = new FixedContext(sh(""));
    String params =
        sh(
            "echo 'starting'; echo '@carillon {\"type\":\"progress\",\"message\":\"half way\"}';"
                + " echo '@carillon {\"type\":\"result\",\"summary\":\"first\"}';"
                + " echo \"@carillon {\\\"type\\\":\\\"result\\\",\\\"summary\\\":\\\"task"
                + " $CARILLON_TASK_ID attempt $CARILLON_ATTEMPT\\\",\\\"uri\\\":\\\"file:///tmp/out\\\"}\"");
    Outcome o = execution(params, context).execute();
    assertThat(o.status()).as("%s", o).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("task exec-test attempt 2");
    assertThat(o.uri()).isEqualTo("file:///tmp/out");
    assertThat(context.progress).containsExactly("half way");
    assertThat(ignored.count()).isZero();
  }

  @Test
  void exit_zero_without_a_result_line_is_success_with_an_empty_summary() {
    Outcome o = run(sh("echo just output"));
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEmpty();
  }

  @Test
  void exit_codes_decide_retryable_and_non_retryable_and_stderr_gives_the_reason() {
    Outcome tempfail = run(sh("echo 'upstream not ready' >&2; exit 75"));
    assertThat(tempfail.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(tempfail.nonRetryable()).isFalse();
    assertThat(tempfail.reason()).isEqualTo("exit 75 (EX_TEMPFAIL, retryable): upstream not ready");

    Outcome dataErr = run(sh("echo 'line 1' >&2; echo 'bad input: x.csv' >&2; exit 65"));
    assertThat(dataErr.nonRetryable()).isTrue();
    assertThat(dataErr.reason())
        .isEqualTo("exit 65 (EX_DATAERR, non-retryable): line 1 | bad input: x.csv");

    Outcome crash = run(sh("exit 1"));
    assertThat(crash.nonRetryable()).isFalse();
    assertThat(crash.reason()).isEqualTo("exit 1 (retryable)");
  }

  @Test
  void only_the_end_of_a_long_stderr_is_kept() {
    Outcome o =
        run(
            sh(
                "i=0; while [ $i -lt 2000 ]; do echo \"noise $i\" >&2; i=$((i+1)); done;"
                    + " echo 'the real cause' >&2; exit 3"));
    assertThat(o.reason()).startsWith("exit 3 (retryable): ...").endsWith("the real cause");
    assertThat(o.reason().length()).isLessThanOrEqualTo(Outcome.MAX_REASON);
  }

  @Test
  void no_shell_unless_asked_arguments_are_passed_as_they_are() {
    Outcome o =
        run(
            "{\"exec\":{\"command\":[\"/bin/echo\","
                + "\"@carillon {\\\"type\\\":\\\"result\\\",\\\"summary\\\":\\\"$HOME; ls\\\"}\"]}}");
    assertThat(o.summary()).isEqualTo("$HOME; ls");
  }

  @Test
  void
      the_environment_has_the_context_the_task_env_and_passed_variables_but_not_the_workers_secrets()
          throws Exception {
    Path out = dir.resolve("env.txt");
    Outcome o =
        run(
            sh(
                "env > " + out,
                ",\"env\":{\"GREETING\":\"hello\"},\"passEnv\":[\"SECRET\",\"NOT_SET\"]"));
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    List<String> env = Files.readAllLines(out);
    assertThat(env)
        .contains(
            "GREETING=hello",
            "SECRET=s3cr3t",
            "CARILLON_PROTOCOL=2",
            "CARILLON_TASK_ID=exec-test",
            "CARILLON_WINDOW_KEY=2026-12-01",
            "CARILLON_ATTEMPT=2",
            "CARILLON_RETRY_COUNT=1",
            "CARILLON_IDEMPOTENCY_KEY=exec-test/2026-12-01",
            "CARILLON_DEADLINE=2026-12-01T10:01:00Z",
            "TRACEPARENT=" + FixedContext.TRACEPARENT)
        .anyMatch(l -> l.startsWith("CARILLON_RESUME_FILE="))
        .noneMatch(l -> l.startsWith("DB_PASSWORD="))
        .noneMatch(l -> l.startsWith("NOT_SET="));
  }

  @Test
  void the_context_arrives_as_json_on_stdin() throws Exception {
    Path out = dir.resolve("stdin.json");
    FixedContext context =
        new FixedContext(sh("cat > " + out), Duration.ofMinutes(1), "exit 75 (EX_TEMPFAIL)");
    Outcome o = execution(context.paramsJson(), context).execute();
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    JsonNode ctx = JSON.readTree(out.toFile());
    assertThat(ctx.get("protocol").asInt()).isEqualTo(2);
    assertThat(ctx.get("taskId").asText()).isEqualTo("exec-test");
    assertThat(ctx.get("idempotencyKey").asText()).isEqualTo("exec-test/2026-12-01");
    assertThat(ctx.get("attempt").asInt()).isEqualTo(2);
    assertThat(ctx.get("retryCount").asInt()).isEqualTo(1);
    assertThat(ctx.get("deadline").asText()).isEqualTo("2026-12-01T10:01:00Z");
    assertThat(ctx.get("previousFailure").asText()).isEqualTo("exit 75 (EX_TEMPFAIL)");
    assertThat(ctx.get("params").get("exec").get("shell").asBoolean()).isTrue();
    assertThat(ctx.get("traceparent").asText()).isEqualTo(FixedContext.TRACEPARENT);
  }

  @Test
  void unknown_and_malformed_protocol_lines_are_ignored_and_counted() {
    Outcome o =
        run(
            sh(
                "echo '@carillon {\"type\":\"telemetry\",\"cpu\":1}';"
                    + " echo '@carillon {\"v\":9,\"type\":\"progress\",\"message\":\"x\"}';"
                    + " echo '@carillon oops';"
                    + " echo '@carillon {\"type\":\"result\",\"summary\":\"fine\"}'"));
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("fine");
    assertThat(ignored.count()).isEqualTo(3);
  }

  @Test
  void output_beyond_the_bounds_is_drained_so_the_command_never_blocks_and_a_cut_line_is_ignored() {
    // 4 MiB of stdout (more than the 1 MiB read and any pipe buffer), a 20 KiB protocol line (cut
    // at 16 KiB), then a result that is never read.
    Outcome o =
        run(
            sh(
                "printf '@carillon {\"type\":\"progress\",\"message\":\"'; head -c 20000 /dev/zero"
                    + " | tr '\\\\0' a; echo '\"}'; head -c 4194304 /dev/zero | tr '\\\\0' b;"
                    + " echo; echo '@carillon {\"type\":\"result\",\"summary\":\"late\"}'"));
    assertThat(o.status()).as("%s", o).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEmpty();
    assertThat(ignored.count()).isEqualTo(1);
  }

  @Test
  void a_command_that_cannot_start_fails_retryable_naming_the_program() {
    Outcome o = run("{\"exec\":{\"command\":[\"/no/such/program\",\"x\"]}}");
    assertThat(o.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(o.nonRetryable()).isFalse();
    assertThat(o.reason()).startsWith("cannot start /no/such/program");
  }

  @Test
  void unusable_settings_fail_non_retryable_naming_the_field() {
    Outcome o = run("{\"exec\":{\"command\":[]}}");
    assertThat(o.nonRetryable()).isTrue();
    assertThat(o.reason()).contains("params.exec.command");
  }

  /** Pids a tree reported as progress: "PID GRANDCHILD_PID". */
  private static long[] pids(FixedContext context) {
    String[] p = context.progress.get(0).split(" ");
    return new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])};
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  private void assertStoppedTreeIsGone(String script, String grace) throws Exception {
    String params = sh(script, ",\"grace\":\"" + grace + "\"");
    FixedContext context = new FixedContext(params);
    AgentExecution e = execution(params, context);
    CompletableFuture<Outcome> running = CompletableFuture.supplyAsync(e::execute);
    await("the command and its child are up")
        .atMost(Duration.ofSeconds(10))
        .until(() -> !context.progress.isEmpty());
    long[] pids = pids(context);
    assertThat(alive(pids[0])).isTrue();
    assertThat(alive(pids[1])).isTrue();

    e.stop();
    running.get(20, TimeUnit.SECONDS);
    if (ExecAgents.findSetsid().isPresent()) {
      // Right after execute returns, nothing of the group is left but zombies waiting for init.
      assertThat(ProcessTree.groupMembers(pids[0])).isEmpty();
    }
    await("the grandchild " + pids[1] + " is reaped")
        .atMost(Duration.ofSeconds(5))
        .until(() -> !alive(pids[1]));
    assertThat(alive(pids[0])).isFalse();
    assertThat(abandoned.count()).isZero();
  }

  @Test
  void a_stop_kills_the_command_and_its_own_child() throws Exception {
    assertStoppedTreeIsGone(
        "sleep 600 & echo \"@carillon {\\\"type\\\":\\\"progress\\\",\\\"message\\\":\\\"$$ $!\\\"}\"; wait",
        "5s");
  }

  @Test
  void a_tree_that_ignores_sigterm_is_killed_after_the_grace() throws Exception {
    assertStoppedTreeIsGone(
        "trap '' TERM; sh -c \"trap '' TERM; sleep 600\" & echo \"@carillon"
            + " {\\\"type\\\":\\\"progress\\\",\\\"message\\\":\\\"$$ $!\\\"}\"; while true; do"
            + " sleep 1; done",
        "300ms");
  }

  @Test
  void processes_left_behind_by_a_command_that_exited_are_stopped_too() throws Exception {
    Path pidFile = dir.resolve("pid");
    Outcome o =
        run(
            sh(
                "sleep 600 > /dev/null 2>&1 & echo $! > "
                    + pidFile
                    + "; echo '@carillon {\"type\":\"result\",\"summary\":\"done\"}'",
                ",\"grace\":\"1s\""));
    assertThat(o.status()).isEqualTo(InstanceStatus.SUCCESS);
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    await("the left-behind sleep " + pid + " is reaped")
        .atMost(Duration.ofSeconds(5))
        .until(() -> !alive(pid));
  }

  @Test
  void a_python_agent_reads_its_context_from_stdin() throws Exception {
    Optional<Path> python = Python.find();
    Assumptions.assumeTrue(python.isPresent(), "python3 is not installed: skipping");
    Path script = dir.resolve("agent.py");
    Files.writeString(
        script,
        String.join(
            "\n",
            "import json, sys",
            "ctx = json.load(sys.stdin)",
            "print('@carillon ' + json.dumps({'type': 'result',",
            "      'summary': ctx['idempotencyKey'] + ' ' + ctx['params']['who']}), flush=True)"));
    Outcome o =
        run(
            "{\"who\":\"py\",\"exec\":{\"command\":["
                + JSON.writeValueAsString(python.get().toString())
                + ","
                + JSON.writeValueAsString(script.toString())
                + "]}}");
    assertThat(o.status()).as("%s", o).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(o.summary()).isEqualTo("exec-test/2026-12-01 py");
  }

  @Test
  void the_context_and_the_resume_file_carry_what_earlier_attempts_left() throws Exception {
    Path stdin = dir.resolve("stdin.json");
    Path file = dir.resolve("resume.json");
    String params =
        sh(
            "cat > '"
                + stdin
                + "'; cp \"$CARILLON_RESUME_FILE\" '"
                + file
                + "'; "
                + "echo \"$CARILLON_RESUME_FILE\" > '"
                + dir.resolve("path")
                + "'");
    MemoryRecords records =
        new MemoryRecords(
            Optional.of(new Checkpoint("{\"next\":40}", 1, Instant.parse("2026-12-01T09:58:00Z"))),
            Map.of(
                "post", new RunRecords.EarlierEffect(true, "msg-17", 1),
                "charge", new RunRecords.EarlierEffect(false, null, 1)));

    Outcome o = execution(params, new FixedContext(params), records).execute();

    assertThat(o.status()).as("%s", o).isEqualTo(InstanceStatus.SUCCESS);
    JsonNode resume = JSON.readTree(Files.readString(stdin)).get("resume");
    assertThat(JSON.readTree(Files.readString(stdin)).get("protocol").asInt()).isEqualTo(2);
    assertThat(resume.get("lastCheckpoint").get("state").get("next").asInt()).isEqualTo(40);
    assertThat(resume.get("lastCheckpoint").get("attempt").asInt()).isEqualTo(1);
    assertThat(resume.get("effects").get("post").get("done").asBoolean()).isTrue();
    assertThat(resume.get("effects").get("post").get("result").asText()).isEqualTo("msg-17");
    assertThat(resume.get("effects").get("charge").get("done").asBoolean()).isFalse();
    assertThat(resume.get("effectKeyPrefix").asText()).isEqualTo("exec-test/2026-12-01/");
    assertThat(JSON.readTree(Files.readString(file))).isEqualTo(resume);
    Path handed = Path.of(Files.readString(dir.resolve("path")).strip());
    assertThat(handed).as("the resume file is deleted when the run ends").doesNotExist();
  }

  @Test
  void checkpoint_and_effect_lines_reach_the_records_in_order_and_bad_ones_are_counted()
      throws Exception {
    MemoryRecords records = MemoryRecords.empty();
    String params =
        sh(
            "echo '@carillon {\"type\":\"checkpoint\",\"state\":{\"next\":1}}';"
                + " echo '@carillon {\"type\":\"effect\",\"key\":\"post\",\"phase\":\"start\"}';"
                + " echo '@carillon {\"type\":\"effect\",\"key\":\"post\",\"result\":\"msg-1\"}';"
                + " echo '@carillon {\"type\":\"effect\",\"key\":\"not a key\"}';"
                + " echo '@carillon {\"type\":\"checkpoint\",\"state\":{\"next\":2}}'");

    Outcome o = execution(params, new FixedContext(params), records).execute();

    assertThat(o.status()).as("%s", o).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(records.reported)
        .containsExactly(
            "checkpoint {\"next\":1}", "start post", "done post msg-1", "checkpoint {\"next\":2}");
    assertThat(ignored.count()).as("the effect with a bad key").isEqualTo(1.0);
  }
}
