package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exec agents and progress in the real worker on devstack: progress reported by an exec agent's
 * lines and by a plugin's heartbeat is visible in the instance while it runs and after it ends; a
 * timed-out command dies with its own child.
 */
@Timeout(120)
class ExecAgentWorkerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static WorkerTestKit kit;
  static WorkerService worker;

  @TempDir Path dir;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_exec", 2);
    worker =
        kit.worker(
            "exec-1", Map.of("worker.heartbeat-interval", "100ms", "worker.concurrency", "4"));
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  private static String sh(String script) throws Exception {
    return "{\"exec\":{\"shell\":true,\"grace\":\"1s\",\"command\":["
        + JSON.writeValueAsString(script)
        + "]}}";
  }

  /**
   * Whether {@code pid} runs: alive and, where /proc tells, not a zombie waiting for its reaper.
   */
  private static boolean running(long pid) throws Exception {
    Path stat = Path.of("/proc", Long.toString(pid), "stat");
    if (!alive(pid)) {
      return false;
    }
    if (!Files.exists(stat)) {
      return true;
    }
    String s;
    try {
      s = Files.readString(stat);
    } catch (IOException gone) {
      return false;
    }
    return s.charAt(s.lastIndexOf(')') + 2) != 'Z';
  }

  private static boolean alive(long pid) {
    return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
  }

  @Test
  void an_exec_agents_progress_is_kept_while_it_runs_and_its_last_report_and_result_at_the_end()
      throws Exception {
    Path go = dir.resolve("go");
    kit.task(
        "exec-progress",
        "exec",
        sh(
            "echo '@carillon {\"type\":\"progress\",\"message\":\"reading 1 of 2\"}';"
                + " while [ ! -f "
                + go
                + " ]; do sleep 0.05; done;"
                + " echo '@carillon {\"type\":\"progress\",\"message\":\"2 of 2 read\"}';"
                + " echo '@carillon {\"type\":\"result\",\"summary\":\"two files\"}'"));
    Instance i = kit.instance("exec-progress", "w1", Duration.ofSeconds(30));
    kit.publish(i);

    await("the running instance shows the agent's first report")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Instance row = kit.find(i.id());
              assertThat(row.status()).isEqualTo(InstanceStatus.RUNNING);
              assertThat(row.progress()).isEqualTo("reading 1 of 2");
              assertThat(row.progressAt()).isNotNull();
            });
    Files.createFile(go);
    await("the instance succeeds with the last report")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Instance row = kit.find(i.id());
              assertThat(row.status()).isEqualTo(InstanceStatus.SUCCESS);
              assertThat(row.resultSummary()).isEqualTo("two files");
              assertThat(row.progress()).isEqualTo("2 of 2 read");
            });
  }

  @Test
  void a_plugins_heartbeat_progress_is_kept_with_the_instance() {
    kit.task("plugin-progress", "counting", "{\"duration\":\"20s\",\"progress\":\"step 1 of 3\"}");
    Instance i = kit.instance("plugin-progress", "w1", Duration.ofSeconds(30));
    kit.publish(i);
    await("the plugin's report reaches the row")
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              Instance row = kit.find(i.id());
              assertThat(row.status()).isEqualTo(InstanceStatus.RUNNING);
              assertThat(row.progress()).isEqualTo("step 1 of 3");
            });
  }

  @Test
  void a_timed_out_command_is_killed_with_its_own_child_before_its_timeout_is_written()
      throws Exception {
    kit.task(
        "exec-timeout",
        "exec",
        sh(
            "trap '' TERM; sleep 600 & echo \"@carillon {\\\"type\\\":\\\"progress\\\","
                + "\\\"message\\\":\\\"$$ $!\\\"}\"; while true; do sleep 1; done"));
    Instance i = kit.instance("exec-timeout", "w1", Duration.ofSeconds(2));
    kit.publish(i);
    await("the command reports its pid and its child's")
        .atMost(Duration.ofSeconds(20))
        .until(() -> kit.find(i.id()).progress() != null);
    String[] pids = kit.find(i.id()).progress().split(" ");
    long child = Long.parseLong(pids[0]);
    long grandchild = Long.parseLong(pids[1]);

    await("the instance times out")
        .atMost(Duration.ofSeconds(20))
        .until(() -> kit.find(i.id()).status() == InstanceStatus.TIMEOUT);
    // The command ignores SIGTERM: SIGKILL after its 1 s grace ends it and its child, and only then
    // is TIMEOUT written, so no retry can start while they run.
    assertThat(running(child)).as("command pid %d when TIMEOUT is visible", child).isFalse();
    assertThat(running(grandchild)).as("its child pid %d then", grandchild).isFalse();
    assertThat(kit.find(i.id()).failReason())
        .startsWith("exceeded its timeout of PT2S")
        .endsWith("; recorded once the agent had stopped");
    await("no process of the run is left, not even as a zombie")
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(alive(child)).as("command pid %d", child).isFalse();
              assertThat(alive(grandchild)).as("its child pid %d", grandchild).isFalse();
            });
  }
}
