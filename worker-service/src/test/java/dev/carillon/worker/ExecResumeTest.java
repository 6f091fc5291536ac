package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.SavedCheckpoint;
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
 * Checkpoints and effects of an exec agent in the real worker on devstack: what its protocol lines
 * record, and what the next attempt finds in its context and its resume file.
 */
@Timeout(120)
class ExecResumeTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static WorkerTestKit kit;
  static WorkerService worker;

  @TempDir Path dir;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_exec_resume", 1);
    worker = kit.worker("exec-resume-1", Map.of());
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void an_exec_agents_lines_are_recorded_and_the_retry_finds_them_in_its_context_and_file()
      throws Exception {
    // Attempt 1 checkpoints, performs "post" (start, then done) and fails retryably; attempt 2
    // keeps its stdin and resume file, checkpoints, reports "post" again and succeeds.
    String script =
        "cat > '"
            + dir
            + "/stdin-'$CARILLON_ATTEMPT.json; cp \"$CARILLON_RESUME_FILE\" '"
            + dir
            + "/file-'$CARILLON_ATTEMPT.json;"
            + " echo '@carillon {\"type\":\"checkpoint\",\"state\":{\"by\":'$CARILLON_ATTEMPT'}}';"
            + " if [ \"$CARILLON_ATTEMPT\" = 1 ]; then"
            + "   echo '@carillon {\"type\":\"effect\",\"key\":\"post\",\"phase\":\"start\"}';"
            + "   echo '@carillon {\"type\":\"effect\",\"key\":\"post\",\"result\":\"msg-1\"}';"
            + "   echo 'upstream busy' >&2; exit 75;"
            + " fi;"
            + " echo '@carillon {\"type\":\"effect\",\"key\":\"post\",\"result\":\"msg-2\"}';"
            + " echo '@carillon {\"type\":\"result\",\"summary\":\"done\"}'";
    kit.task(
        "exec-resume",
        "exec",
        "{\"exec\":{\"shell\":true,\"grace\":\"1s\",\"command\":["
            + JSON.writeValueAsString(script)
            + "]}}");
    Instance i = kit.instance("exec-resume", "w1", Duration.ofSeconds(60));
    kit.publish(i);
    await("attempt 1 fails retryably")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.FAILED));
    double skipped = worker.metrics().effectsSkipped.count();

    kit.retryNow(i.id());
    await("attempt 2 succeeds")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));

    JsonNode first = JSON.readTree(Files.readString(dir.resolve("stdin-1.json"))).get("resume");
    assertThat(first.get("lastCheckpoint").isNull()).isTrue();
    assertThat(first.get("effects").size()).isZero();
    JsonNode second = JSON.readTree(Files.readString(dir.resolve("stdin-2.json"))).get("resume");
    assertThat(second.get("lastCheckpoint").get("state").get("by").asInt()).isEqualTo(1);
    assertThat(second.get("lastCheckpoint").get("attempt").asInt()).isEqualTo(1);
    assertThat(second.get("effects").get("post").get("done").asBoolean()).isTrue();
    assertThat(second.get("effects").get("post").get("result").asText()).isEqualTo("msg-1");
    assertThat(second.get("effectKeyPrefix").asText()).isEqualTo("exec-resume/w1/");
    assertThat(JSON.readTree(Files.readString(dir.resolve("file-2.json")))).isEqualTo(second);

    assertThat(kit.instances.checkpoints(i.id()))
        .extracting(SavedCheckpoint::attempt, SavedCheckpoint::stateJson)
        .containsExactly(tuple(1, "{\"by\":1}"), tuple(2, "{\"by\":2}"));
    assertThat(kit.instances.effects(i.id()))
        .as("the post attempt 2 reported again is not recorded again")
        .extracting(EffectRecord::attempt, EffectRecord::done, EffectRecord::result)
        .containsExactly(tuple(1, true, "msg-1"));
    assertThat(worker.metrics().effectsSkipped.count()).isEqualTo(skipped + 1);
  }
}
