package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.schedctl.Schedctl;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the local stack's entry point for a short while and watches real outcomes land. */
class LocalStackTest {
  @TempDir Path dataDir;

  private static final Path TASKS = Path.of("src/test/resources/fast-tasks.yaml");

  private static int count(LocalStack stack, String task, InstanceStatus status) {
    return stack
        .database()
        .dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE.TASK_ID.eq(task).and(TASK_INSTANCE.STATUS.eq(status.name())));
  }

  private static int retried(LocalStack stack, String task) {
    return stack
        .database()
        .dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE
                .TASK_ID
                .eq(task)
                .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))
                .and(TASK_INSTANCE.RETRY_COUNT.ge(1)));
  }

  @Test
  void instances_succeed_retry_and_skip_and_the_data_survives_a_restart() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    long before;
    Map<String, String> cli;
    String token;
    try (LocalStack stack = LocalStack.start(new LocalStackOptions(dataDir, true, TASKS, 0), out)) {
      token = stack.apiToken();
      assertThat(bytes.toString(StandardCharsets.UTF_8))
          .contains("Console: " + stack.apiUrl() + "/console/")
          .contains("API: " + stack.apiUrl() + "/api/v1")
          .contains("export CARILLON_API_URL=" + stack.apiUrl())
          .contains("export CARILLON_API_TOKEN=" + token);
      HttpResponse<String> tasks = get(stack.apiUrl() + "/api/v1/tasks", token);
      assertThat(tasks.statusCode()).isEqualTo(200);
      assertThat(tasks.body()).contains("\"id\":\"news-digest\"");
      assertThat(get(stack.apiUrl() + "/api/v1/tasks", null).statusCode()).isEqualTo(401);
      HttpResponse<String> console = get(stack.apiUrl() + "/console/", null);
      assertThat(console.statusCode()).as("the console needs no token to load").isEqualTo(200);
      assertThat(console.body()).contains("Carillon console");
      await("a digest succeeds, a flaky report succeeds after a retry, a crawler window is skipped")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(250))
          .untilAsserted(
              () -> {
                assertThat(count(stack, "news-digest", InstanceStatus.SUCCESS)).isPositive();
                assertThat(retried(stack, "flaky-report")).isPositive();
                assertThat(count(stack, "slow-crawler", InstanceStatus.SKIPPED)).isPositive();
              });
      if (python3OnPath()) {
        await("the Python agent (an exec task) succeeds with its last progress kept")
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .untilAsserted(
                () ->
                    assertThat(
                            stack
                                .database()
                                .dsl()
                                .fetchCount(
                                    TASK_INSTANCE,
                                    TASK_INSTANCE
                                        .TASK_ID
                                        .eq("file-summary")
                                        .and(TASK_INSTANCE.STATUS.eq("SUCCESS"))
                                        .and(TASK_INSTANCE.PROGRESS.eq("2 of 2 files summarised"))))
                        .isPositive());
      } else {
        System.out.println("python3 is not on the PATH: not checking the file-summary task");
      }
      before = stack.database().dsl().fetchCount(TASK_INSTANCE);
      // The feed shows each kind of line with its reason.
      await("the feed to show each kind of line")
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(bytes.toString(StandardCharsets.UTF_8))
                      .contains("news-digest")
                      .contains("RUNNING -> SUCCESS")
                      .contains("RETRY_WAIT -> PENDING")
                      .contains("created SKIPPED")
                      .contains("still RUNNING"));
      cli = stack.cliEnvironment().variables();
      assertThat(exports(dataDir.resolve("cli.env"))).isEqualTo(cli);
      assertThat(bytes.toString(StandardCharsets.UTF_8))
          .contains("source " + dataDir.resolve("cli.env").toAbsolutePath())
          .contains("export CARILLON_DB_URL='" + cli.get("CARILLON_DB_URL") + "'");
      // The printed environment is all schedctl needs: the database and Kafka answer.
      assertThat(schedctl(cli, "get", "tasks"))
          .contains("news-digest")
          .contains("flaky-report")
          .contains("slow-crawler");
      schedctl(cli, "config", "get");
    }
    String feed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(feed).contains("applied 4 task(s)");

    // Started again on the same data directory: nothing is lost, and the tasks are unchanged.
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    try (LocalStack stack =
        LocalStack.start(
            new LocalStackOptions(dataDir, false, TASKS, 0),
            new PrintStream(again, true, StandardCharsets.UTF_8))) {
      assertThat(stack.database().dsl().fetchCount(TASK_INSTANCE))
          .isGreaterThanOrEqualTo((int) before);
      assertThat(again.toString(StandardCharsets.UTF_8)).contains("(0 new or changed)");
      // Same data directory, same ports: a CLI configured from the first start still reaches it.
      assertThat(stack.cliEnvironment().variables()).isEqualTo(cli);
      assertThat(exports(dataDir.resolve("cli.env"))).isEqualTo(cli);
      assertThat(stack.apiToken()).as("the token is kept in the data directory").isEqualTo(token);
      assertThat(get(stack.apiUrl() + "/api/v1/whoami", token).body())
          .contains("\"principal\":\"local-admin\"")
          .contains("\"role\":\"admin\"");
    }
  }

  private static boolean python3OnPath() {
    String path = System.getenv("PATH");
    return path != null
        && Arrays.stream(path.split(File.pathSeparator))
            .anyMatch(d -> Files.isExecutable(Path.of(d, "python3")));
  }

  private static HttpResponse<String> get(String url, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The variables of a file of {@code export NAME='value'} lines. */
  private static Map<String, String> exports(Path file) throws IOException {
    Map<String, String> vars = new LinkedHashMap<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.startsWith("export ")) {
        int eq = line.indexOf('=');
        String value = line.substring(eq + 1);
        assertThat(value).as("quoted value in %s", line).startsWith("'").endsWith("'");
        vars.put(line.substring("export ".length(), eq), value.substring(1, value.length() - 1));
      }
    }
    return vars;
  }

  /** Runs schedctl in-process with only {@code env} as its environment; returns its output. */
  private static String schedctl(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        new Schedctl()
            .run(
                args,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                env);
    assertThat(exit).as("schedctl %s exit code; stderr: %s", String.join(" ", args), err).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void options_name_the_bad_argument() {
    assertThat(LocalStackOptions.parse(new String[] {"--fresh", "--admin-port", "0"}))
        .isEqualTo(
            new LocalStackOptions(
                LocalStackOptions.DEFAULT_DATA_DIR,
                true,
                LocalStackOptions.DEFAULT_TASKS,
                0,
                LocalStackOptions.DEFAULT_API_PORT));
    for (Map.Entry<String[], String> bad :
        Map.of(
                new String[] {"--bogus"}, "unknown option '--bogus'",
                new String[] {"--admin-port", "x"}, "--admin-port must be a port number, was 'x'",
                new String[] {"--tasks"}, "--tasks needs a value",
                new String[] {"--api-port", "y"}, "--api-port must be a port number, was 'y'")
            .entrySet()) {
      try {
        LocalStackOptions.parse(bad.getKey());
        throw new AssertionError("accepted " + String.join(" ", bad.getKey()));
      } catch (IllegalArgumentException e) {
        assertThat(e.getMessage()).contains(bad.getValue());
      }
    }
  }
}
