package dev.carillon.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.alert.AlertSettings;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.Setup;
import dev.carillon.control.ApiSettings;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.retry.RetrySettings;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.TriggerSettings;
import dev.carillon.worker.WorkerSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Keeps the configuration reference of docs/operations.md in step with the settings classes. */
class OperationsGuideTest {
  @Test
  void every_configuration_key_and_its_variable_is_documented() throws IOException {
    Path root = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(root.resolve("docs"))) {
      root = root.getParent();
    }
    String guide = Files.readString(root.resolve("docs/operations.md"), StandardCharsets.UTF_8);
    Set<String> keys = new LinkedHashSet<>(CommonSettings.KEYS);
    keys.addAll(TriggerSettings.KEYS);
    keys.addAll(WorkerSettings.KEYS);
    keys.addAll(RetrySettings.KEYS);
    keys.addAll(ApiSettings.KEYS);
    keys.addAll(Setup.MIGRATE_KEYS);
    keys.addAll(Setup.TOPIC_KEYS);
    keys.add(TaskLabel.KEY);
    keys.addAll(Tracing.KEYS);
    keys.addAll(AlertSettings.KEYS);
    for (String key : keys) {
      assertThat(guide).as("docs/operations.md documents %s", key).contains("| `" + key + "` |");
      String variable =
          key.endsWith("*")
              ? Config.envName(key.substring(0, key.length() - 1)) + "*"
              : Config.envName(key);
      assertThat(guide).as("docs/operations.md names %s", variable).contains("`" + variable);
    }
  }
}
