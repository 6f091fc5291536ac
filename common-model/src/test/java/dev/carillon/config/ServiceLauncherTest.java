package dev.carillon.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServiceLauncherTest {
  @Test
  void the_config_file_is_optional_and_named_by_config() {
    assertThat(ServiceLauncher.configFile("trigger", new String[0])).isEmpty();
    assertThat(
            ServiceLauncher.configFile("trigger", new String[] {"--config", "/etc/c.properties"}))
        .isEqualTo(Optional.of(Path.of("/etc/c.properties")));
  }

  @Test
  void an_unknown_argument_is_named_with_the_usage() {
    assertThatThrownBy(() -> ServiceLauncher.configFile("worker", new String[] {"--verbose"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'--verbose'")
        .hasMessageContaining("usage: worker [--config FILE]");
    assertThatThrownBy(() -> ServiceLauncher.configFile("worker", new String[] {"--config"}))
        .hasMessageContaining("'--config'");
  }
}
