package dev.carillon.worker.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentTask;
import dev.carillon.config.Config;
import dev.carillon.worker.WorkerService;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code worker.plugin-allowlist}: a jar whose SHA-256 is not listed stops the worker. */
class PluginAllowlistTest {
  @TempDir Path root;
  private Path plugins;
  private Path reviewed;
  private Path unreviewed;

  @BeforeEach
  void twoJars() throws IOException {
    plugins = Files.createDirectories(root.resolve("plugins"));
    reviewed = jar("reviewed.jar", ReviewedAgent.class);
    unreviewed = jar("unreviewed.jar", UnreviewedAgent.class);
  }

  private Path jar(String name, Class<? extends AgentTask> provider) throws IOException {
    return jar(name, provider, "");
  }

  private Path jar(String name, Class<? extends AgentTask> provider, String extra)
      throws IOException {
    Path jar = plugins.resolve(name);
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out)) {
      j.putNextEntry(new JarEntry("META-INF/services/" + AgentTask.class.getName()));
      j.write((provider.getName() + "\n" + extra).getBytes(StandardCharsets.UTF_8));
      j.closeEntry();
    }
    return jar;
  }

  /** An allowlist in sha256sum's format listing {@code jars}. */
  private Path allowlist(Path... jars) throws IOException {
    StringBuilder sb = new StringBuilder("# reviewed plugins\n\n");
    for (Path jar : jars) {
      sb.append(PluginAllowlist.sha256(jar)).append("  ").append(jar.getFileName()).append('\n');
    }
    return Files.writeString(root.resolve("plugins.sha256"), sb.toString());
  }

  private PluginRegistry load(Path allowlist) {
    return PluginRegistry.load(
        getClass().getClassLoader(), Optional.of(plugins), Optional.of(allowlist));
  }

  @Test
  void a_jar_not_on_the_list_stops_loading_and_is_named_with_its_sum() throws IOException {
    Path list = allowlist(reviewed);
    assertThatThrownBy(() -> load(list))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining(PluginAllowlist.sha256(unreviewed) + "  unreviewed.jar")
        .hasMessageNotContaining("reviewed.jar,")
        .hasMessageNotContaining(PluginAllowlist.sha256(reviewed))
        .hasMessageContaining("loads none");
  }

  @Test
  void jars_on_the_list_load_whatever_their_file_name() throws IOException {
    Path list = allowlist(reviewed, unreviewed);
    Files.move(reviewed, plugins.resolve("renamed.jar"));
    try (PluginRegistry r = load(list)) {
      assertThat(r.types()).contains("reviewed", "unreviewed");
    }
  }

  @Test
  void a_listed_jar_that_was_changed_is_refused() throws IOException {
    Path list = allowlist(reviewed, unreviewed);
    jar("unreviewed.jar", UnreviewedAgent.class, "# one more line after the review\n");
    assertThatThrownBy(() -> load(list))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("unreviewed.jar");
  }

  @Test
  void the_worker_refuses_to_start_before_it_touches_the_database() throws IOException {
    Path list = allowlist(reviewed);
    Config config =
        Config.of(
            Map.of(
                "db.url",
                "jdbc:postgresql://127.0.0.1:1/none",
                "kafka.bootstrap",
                "127.0.0.1:1",
                "worker.plugin-dir",
                plugins.toString(),
                "worker.plugin-allowlist",
                list.toString()));
    assertThatThrownBy(() -> WorkerService.start(config))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("unreviewed.jar");
  }

  @Test
  void a_line_that_is_not_a_sum_and_a_name_is_named() throws IOException {
    Path list = Files.writeString(root.resolve("bad.sha256"), "# ok\nabc123  short.jar\n");
    assertThatThrownBy(() -> load(list))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("'abc123  short.jar'");
  }
}
