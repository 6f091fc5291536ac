package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.InstanceStatus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./carillon-local --plugin-dir DIR}: an agent developer's own plugin jar, built here from
 * source the way a developer builds one, is loaded by the local stack's worker, which also serves
 * the queue the task file names.
 */
class PluginDirTest {
  @TempDir Path dataDir;
  @TempDir Path work;

  private static final String SOURCE =
      """
      package acme;

      import dev.carillon.api.AgentContext;
      import dev.carillon.api.AgentResult;
      import dev.carillon.api.AgentTask;

      public final class EchoAgent implements AgentTask {
        @Override
        public String type() {
          return "acme-echo";
        }

        @Override
        public AgentResult run(AgentContext context) {
          return AgentResult.of("echo from a plugin directory");
        }
      }
      """;

  /** Compiles the agent against the worker API and packs it with its services file. */
  private Path pluginJar(Path dir) throws IOException {
    Path src = work.resolve("src/acme/EchoAgent.java");
    Files.createDirectories(src.getParent());
    Files.writeString(src, SOURCE);
    Path classes = work.resolve("classes");
    Files.createDirectories(classes);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "-classpath",
            System.getProperty("java.class.path"),
            "-d",
            classes.toString(),
            src.toString());
    assertThat(rc).as("javac exit code").isZero();
    Path jar = dir.resolve("acme-echo.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out)) {
      j.putNextEntry(new JarEntry("acme/EchoAgent.class"));
      j.write(Files.readAllBytes(classes.resolve("acme/EchoAgent.class")));
      j.closeEntry();
      j.putNextEntry(new JarEntry("META-INF/services/dev.carillon.api.AgentTask"));
      j.write("acme.EchoAgent\n".getBytes(StandardCharsets.UTF_8));
      j.closeEntry();
    }
    return jar;
  }

  @Test
  void the_worker_runs_a_plugin_from_the_directory_in_the_queue_the_task_file_names()
      throws IOException {
    Path plugins = Files.createDirectories(work.resolve("plugins"));
    pluginJar(plugins);
    Path tasks = work.resolve("tasks.yaml");
    Files.writeString(
        tasks,
        """
        tasks:
          - id: my-echo
            handler: acme-echo
            queue: my-agents
            schedule: { cron: "0/2 * * * * ?", zone: UTC, window: EVERY_FIRE }
            timeout: 30s
        """);
    LocalStackOptions options =
        LocalStackOptions.parse(
            new String[] {
              "--fresh",
              "--data-dir",
              dataDir.toString(),
              "--tasks",
              tasks.toString(),
              "--plugin-dir",
              plugins.toString(),
              "--admin-port",
              "0",
              "--api-port",
              "0"
            });
    assertThat(options.pluginDir()).contains(plugins);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (LocalStack stack =
        LocalStack.start(options, new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
      await("an instance of my-echo succeeds with the plugin's result")
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () ->
                  assertThat(
                          stack
                              .database()
                              .dsl()
                              .select(TASK_INSTANCE.RESULT_SUMMARY)
                              .from(TASK_INSTANCE)
                              .where(TASK_INSTANCE.TASK_ID.eq("my-echo"))
                              .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))
                              .fetch(TASK_INSTANCE.RESULT_SUMMARY))
                      .contains("echo from a plugin directory"));
    }
  }

  @Test
  void a_plugin_dir_that_is_not_a_directory_is_named() {
    assertThatThrownBy(
            () ->
                LocalStackOptions.parse(
                    new String[] {"--plugin-dir", work.resolve("missing").toString()}))
        .hasMessageContaining("--plugin-dir must be a directory of plugin jars, was '")
        .hasMessageContaining("missing'");
    assertThatThrownBy(() -> LocalStackOptions.parse(new String[] {"--plugin-dir"}))
        .hasMessageContaining("--plugin-dir needs a value");
    assertThat(LocalStackOptions.parse(new String[0]).pluginDir()).isEqualTo(Optional.empty());
    assertThat(List.of(LocalStackOptions.usage()))
        .singleElement()
        .asString()
        .contains("--plugin-dir DIR");
  }
}
