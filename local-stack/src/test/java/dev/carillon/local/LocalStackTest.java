package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.InstanceStatus;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
  void instances_succeed_retry_and_skip_and_the_data_survives_a_restart() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    long before;
    try (LocalStack stack = LocalStack.start(new LocalStackOptions(dataDir, true, TASKS, 0), out)) {
      await("a digest succeeds, a flaky report succeeds after a retry, a crawler window is skipped")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(250))
          .untilAsserted(
              () -> {
                assertThat(count(stack, "news-digest", InstanceStatus.SUCCESS)).isPositive();
                assertThat(retried(stack, "flaky-report")).isPositive();
                assertThat(count(stack, "slow-crawler", InstanceStatus.SKIPPED)).isPositive();
              });
      before = stack.database().dsl().fetchCount(TASK_INSTANCE);
      // The feed shows each kind of line with its reason.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(bytes.toString(StandardCharsets.UTF_8))
                      .contains("news-digest")
                      .contains("RUNNING -> SUCCESS")
                      .contains("RETRY_WAIT -> PENDING")
                      .contains("created SKIPPED")
                      .contains("still RUNNING"));
    }
    String feed = bytes.toString(StandardCharsets.UTF_8);
    assertThat(feed).contains("applied 3 task(s)");

    // Started again on the same data directory: nothing is lost, and the tasks are unchanged.
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    try (LocalStack stack =
        LocalStack.start(
            new LocalStackOptions(dataDir, false, TASKS, 0),
            new PrintStream(again, true, StandardCharsets.UTF_8))) {
      assertThat(stack.database().dsl().fetchCount(TASK_INSTANCE))
          .isGreaterThanOrEqualTo((int) before);
      assertThat(again.toString(StandardCharsets.UTF_8)).contains("(0 new or changed)");
    }
  }

  @Test
  void options_name_the_bad_argument() {
    assertThat(LocalStackOptions.parse(new String[] {"--fresh", "--admin-port", "0"}))
        .isEqualTo(
            new LocalStackOptions(
                LocalStackOptions.DEFAULT_DATA_DIR, true, LocalStackOptions.DEFAULT_TASKS, 0));
    for (Map.Entry<String[], String> bad :
        Map.of(
                new String[] {"--bogus"}, "unknown option '--bogus'",
                new String[] {"--admin-port", "x"}, "--admin-port must be a port number, was 'x'",
                new String[] {"--tasks"}, "--tasks needs a value")
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
