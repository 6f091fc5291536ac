package dev.carillon.agents.python;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example Python agent ({@code examples/agents/summarize.py}) against the exec protocol on its
 * own, without a worker: what it reads, what it prints, its exit codes and its SIGTERM. Its run in
 * the real worker is {@code local-stack}'s {@code PythonAgentTest}. Skipped without python3.
 */
@Timeout(60)
class SummarizeScriptTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path SCRIPT =
      Path.of("..", "examples", "agents", "summarize.py").toAbsolutePath().normalize();
  private static Path python;

  @TempDir Path dir;

  @BeforeAll
  static void findPython() {
    Optional<Path> p = Optional.empty();
    String path = System.getenv("PATH");
    for (String d : path == null ? new String[0] : path.split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, "python3"))) {
        p = Optional.of(Path.of(d, "python3"));
        break;
      }
    }
    Assumptions.assumeTrue(p.isPresent(), "python3 is not on the PATH: skipping");
    python = p.get();
  }

  /** The context a worker would send, with these params. */
  private static String context(Map<String, Object> params) throws Exception {
    return context(params, null);
  }

  /** The context a worker would send, with these params and an earlier attempt's checkpoint. */
  private static String context(Map<String, Object> params, JsonNode lastCheckpoint)
      throws Exception {
    ObjectNode c = JSON.createObjectNode();
    c.put("protocol", 2);
    c.put("taskId", "file-summary");
    c.put("windowKey", "2026-12-01");
    c.put("idempotencyKey", "file-summary/2026-12-01");
    c.put("attempt", 1);
    c.set("params", JSON.valueToTree(params));
    ObjectNode resume = c.putObject("resume");
    resume.set("lastCheckpoint", lastCheckpoint);
    resume.putObject("effects");
    return JSON.writeValueAsString(c);
  }

  private Process start(Map<String, Object> params) throws Exception {
    return start(context(params));
  }

  private Process start(String context) throws Exception {
    Process p =
        new ProcessBuilder(python.toString(), SCRIPT.toString()).directory(dir.toFile()).start();
    p.getOutputStream().write(context.getBytes(StandardCharsets.UTF_8));
    p.getOutputStream().close();
    return p;
  }

  /** Runs to the end: exit code, protocol lines, stderr. */
  private record Ran(int exit, List<JsonNode> lines, String stderr) {}

  private Ran run(Map<String, Object> params) throws Exception {
    return run(start(params));
  }

  private Ran run(Process p) throws Exception {
    List<JsonNode> lines = new ArrayList<>();
    for (String l :
        new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
      if (l.startsWith("@carillon ")) {
        lines.add(JSON.readTree(l.substring("@carillon ".length())));
      }
    }
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Ran(p.exitValue(), lines, err);
  }

  @Test
  void it_reports_progress_per_file_and_a_result_with_the_reports_uri() throws Exception {
    Files.writeString(dir.resolve("a.txt"), "Bells ring the hours; bells ring.\n");
    Files.writeString(dir.resolve("b.txt"), "The carillon rings\n");
    Ran r = run(Map.of("paths", List.of("a.txt", "b.txt"), "outDir", "out", "top", 2));
    assertThat(r.exit()).as(r.stderr()).isZero();
    assertThat(r.lines())
        .extracting(l -> l.get("type").asText())
        .containsExactly("progress", "checkpoint", "progress", "checkpoint", "progress", "result");
    assertThat(r.lines().get(0).get("message").asText()).isEqualTo("summarising a.txt (1 of 2)");
    assertThat(r.lines().get(3).get("state").get("files")).hasSize(2);
    JsonNode result = r.lines().get(5);
    assertThat(result.get("summary").asText())
        .isEqualTo("2 file(s), 9 words; most common: bells, ring");
    Path report = Path.of(URI.create(result.get("uri").asText()));
    assertThat(report).isEqualTo(dir.resolve("out/file-summary_2026-12-01.json").toRealPath());
    assertThat(JSON.readTree(report.toFile()).get("files")).hasSize(2);
  }

  @Test
  void its_exit_codes_say_retry_later_or_never() throws Exception {
    Ran missing = run(Map.of("paths", List.of("later.txt")));
    assertThat(missing.exit()).isEqualTo(75);
    assertThat(missing.stderr()).contains("not ready: later.txt does not exist yet");

    Files.createDirectory(dir.resolve("sub"));
    Ran notAFile = run(Map.of("paths", List.of("sub")));
    assertThat(notAFile.exit()).isEqualTo(65);
    assertThat(notAFile.stderr()).contains("sub is not a regular file");

    assertThat(run(Map.of()).exit()).isEqualTo(64);
  }

  @Test
  void sigterm_stops_it_between_steps_without_leaving_a_partial_report() throws Exception {
    Files.writeString(dir.resolve("a.txt"), "slow\n");
    Process p = start(Map.of("paths", List.of("a.txt"), "outDir", "out", "pace", 60));
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    // The first progress line says it is inside its (60 s) step.
    assertThat(out.readLine()).startsWith("@carillon ").contains("summarising a.txt");
    // SIGTERM through the handle: Process.destroy would also close our ends of its pipes.
    p.toHandle().destroy();
    assertThat(p.waitFor(10, TimeUnit.SECONDS)).as("exits promptly on SIGTERM").isTrue();
    assertThat(p.exitValue()).isEqualTo(143);
    assertThat(new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8))
        .contains("stopped by SIGTERM");
    try (var files = Files.list(dir.resolve("out"))) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void a_retry_resumes_after_the_files_its_last_checkpoint_covers() throws Exception {
    Files.writeString(dir.resolve("a.txt"), "Bells ring the hours; bells ring.\n");
    Files.writeString(dir.resolve("b.txt"), "The carillon rings\n");
    Map<String, Object> params = Map.of("paths", List.of("a.txt", "b.txt"), "outDir", "out");
    Ran first = run(params);
    JsonNode afterA = first.lines().get(1);
    ObjectNode last = JSON.createObjectNode();
    last.set("state", afterA.get("state"));
    last.put("attempt", 1);
    last.put("savedAt", "2026-12-01T10:00:00Z");

    Ran resumed = run(start(context(params, last)));

    assertThat(resumed.exit()).as(resumed.stderr()).isZero();
    assertThat(resumed.lines().get(0).get("message").asText())
        .isEqualTo("resuming after 1 of 2 files (attempt 1's checkpoint)");
    assertThat(resumed.lines())
        .filteredOn(l -> l.get("type").asText().equals("progress"))
        .extracting(l -> l.get("message").asText())
        .doesNotContain("summarising a.txt (1 of 2)")
        .contains("summarising b.txt (2 of 2)");
    JsonNode result = resumed.lines().get(resumed.lines().size() - 1);
    assertThat(result.get("summary").asText())
        .isEqualTo(first.lines().get(5).get("summary").asText());
    Path report = Path.of(URI.create(result.get("uri").asText()));
    assertThat(JSON.readTree(report.toFile()).get("resumedFrom").asInt()).isEqualTo(1);

    ObjectNode otherList = last.deepCopy();
    ((ObjectNode) otherList.get("state").get("files").get(0)).put("path", "z.txt");
    Ran fresh = run(start(context(params, otherList)));
    assertThat(fresh.lines().get(0).get("message").asText())
        .as("a checkpoint of another list of paths is not used")
        .isEqualTo("summarising a.txt (1 of 2)");
  }
}
