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
  void a_deploy_step_comes_first_and_may_take_a_config_file() {
    assertThat(ServiceLauncher.parse("trigger", new String[] {"migrate"}))
        .isEqualTo(
            new ServiceLauncher.Invocation(ServiceLauncher.Command.MIGRATE, Optional.empty()));
    assertThat(
            ServiceLauncher.parse(
                "retry", new String[] {"create-topics", "--config", "/etc/c.properties"}))
        .isEqualTo(
            new ServiceLauncher.Invocation(
                ServiceLauncher.Command.CREATE_TOPICS, Optional.of(Path.of("/etc/c.properties"))));
    assertThat(ServiceLauncher.parse("worker", new String[0]).command())
        .isEqualTo(ServiceLauncher.Command.SERVE);
    assertThatThrownBy(
            () -> ServiceLauncher.parse("worker", new String[] {"--config", "f", "migrate"}))
        .hasMessageContaining("unknown argument 'migrate'");
  }

  @Test
  void an_unknown_argument_is_named_with_the_usage() {
    assertThatThrownBy(() -> ServiceLauncher.configFile("worker", new String[] {"--verbose"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'--verbose'")
        .hasMessageContaining("usage: worker [migrate|create-topics] [--config FILE]");
    assertThatThrownBy(() -> ServiceLauncher.configFile("worker", new String[] {"--config"}))
        .hasMessageContaining("'--config'");
  }
}
