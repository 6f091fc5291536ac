package dev.carillon.worker.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.config.Config;
import dev.carillon.worker.CountingAgent;
import dev.carillon.worker.WorkerService;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginRegistryTest {
  @TempDir Path dir;

  private Path pluginJar(String... providerClasses) throws IOException {
    Path jar = dir.resolve("plugins.jar");
    try (OutputStream out = Files.newOutputStream(jar);
        JarOutputStream j = new JarOutputStream(out)) {
      j.putNextEntry(new JarEntry("META-INF/services/" + AgentTask.class.getName()));
      j.write((String.join("\n", providerClasses) + "\n").getBytes(StandardCharsets.UTF_8));
      j.closeEntry();
    }
    return jar;
  }

  @Test
  void the_class_path_plugins_are_found_by_type() {
    try (PluginRegistry r = PluginRegistry.load(getClass().getClassLoader(), Optional.empty())) {
      assertThat(r.types()).containsExactly("counting", "ledger-probe", "resuming");
      assertThat(r.find("counting")).get().isInstanceOf(CountingAgent.class);
      assertThat(r.find("nope")).isEmpty();
    }
  }

  @Test
  void a_plugin_directory_adds_the_providers_its_jars_list() throws IOException {
    pluginJar(CountingAgent.class.getName());
    // The same class in the directory and on the class path is one plugin, not a clash.
    try (PluginRegistry r = PluginRegistry.load(getClass().getClassLoader(), Optional.of(dir))) {
      assertThat(r.types()).contains("counting");
    }
  }

  @Test
  void two_plugins_with_the_same_type_stop_the_worker_naming_both_classes() throws IOException {
    pluginJar(DuplicateCountingAgent.class.getName());
    assertThatThrownBy(() -> PluginRegistry.load(getClass().getClassLoader(), Optional.of(dir)))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("two plugins have type 'counting'")
        .hasMessageContaining(CountingAgent.class.getName())
        .hasMessageContaining(DuplicateCountingAgent.class.getName());

    // Through the service's own start: it fails before it touches the (unreachable) database.
    Config config =
        Config.of(
            Map.of(
                "db.url", "jdbc:postgresql://127.0.0.1:1/none",
                "kafka.bootstrap", "127.0.0.1:1",
                "worker.plugin-dir", dir.toString()));
    assertThatThrownBy(() -> WorkerService.start(config))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining(DuplicateCountingAgent.class.getName());
  }

  @Test
  void a_missing_plugin_directory_is_refused() {
    assertThatThrownBy(
            () -> PluginRegistry.load(getClass().getClassLoader(), Optional.of(dir.resolve("x"))))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("is not a directory");
  }

  @Test
  void a_type_that_breaks_the_pattern_is_refused() {
    AgentTask bad =
        new AgentTask() {
          @Override
          public String type() {
            return "Bad Type";
          }

          @Override
          public AgentResult run(AgentContext context) {
            return AgentResult.of("");
          }
        };
    assertThatThrownBy(() -> PluginRegistry.of(List.of(bad)))
        .isInstanceOf(PluginException.class)
        .hasMessageContaining("'Bad Type'");
  }
}
