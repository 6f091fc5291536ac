package dev.carillon.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.ConfigException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class LoggingTest {
  @Test
  void an_instance_scope_puts_its_keys_and_restores_the_outer_scope() {
    MDC.clear();
    try (InstanceMdc outer = InstanceMdc.task("t", null)) {
      assertThat(MDC.get(InstanceMdc.TASK)).isEqualTo("t");
      assertThat(MDC.get(InstanceMdc.WINDOW)).isNull();
      try (InstanceMdc inner = InstanceMdc.instance("u", "w", 7, 2).traceId("abc")) {
        assertThat(MDC.getCopyOfContextMap())
            .containsEntry("task", "u")
            .containsEntry("window", "w")
            .containsEntry("instance", "7")
            .containsEntry("attempt", "2")
            .containsEntry("trace_id", "abc");
      }
      assertThat(MDC.getCopyOfContextMap()).containsExactly(Map.entry("task", "t"));
    }
    assertThat(MDC.getCopyOfContextMap()).isNullOrEmpty();
  }

  @Test
  void the_log_format_is_text_or_json_and_anything_else_is_refused_by_name() {
    assertThat(LogFormat.check(Map.of())).isEqualTo("text");
    assertThat(LogFormat.check(Map.of(LogFormat.ENV, "json"))).isEqualTo("json");
    assertThatThrownBy(() -> LogFormat.check(Map.of(LogFormat.ENV, "JSON")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("CARILLON_LOG_FORMAT = 'JSON'")
        .hasMessageContaining("lower case");
    assertThatThrownBy(() -> LogFormat.check(Map.of(LogFormat.ENV, "xml")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("text or json");
  }
}
