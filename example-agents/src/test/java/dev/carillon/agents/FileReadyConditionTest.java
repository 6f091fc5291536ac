package dev.carillon.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.api.AgentCondition;
import dev.carillon.api.ConditionContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileReadyConditionTest {
  private static final Instant START = Instant.parse("2026-11-29T00:00:00Z");

  @TempDir Path dir;

  private static ConditionContext ctx(String params) {
    return new ConditionContext(
        "t", "2026-11-29", START, START.plusSeconds(86_400), START.plusSeconds(3600), params);
  }

  @Test
  void holds_only_for_a_large_enough_file_written_inside_the_window() throws Exception {
    FileReadyCondition c = new FileReadyCondition();
    Path f = dir.resolve("export.csv");
    String params = "{\"path\":\"" + f.toString().replace("\\", "\\\\") + "\",\"minBytes\":5}";
    assertThat(c.test(ctx(params))).isFalse();
    Files.writeString(f, "abc");
    Files.setLastModifiedTime(f, FileTime.from(START.plusSeconds(60)));
    assertThat(c.test(ctx(params))).isFalse();
    Files.writeString(f, "abcdef");
    Files.setLastModifiedTime(f, FileTime.from(START.minusSeconds(60)));
    assertThat(c.test(ctx(params))).as("written before the window opened").isFalse();
    Files.setLastModifiedTime(f, FileTime.from(START.plusSeconds(60)));
    assertThat(c.test(ctx(params))).isTrue();
    assertThatThrownBy(() -> c.test(ctx("{}"))).hasMessageContaining("params.path");
  }

  @Test
  void is_found_by_service_loader() {
    assertThat(ServiceLoader.load(AgentCondition.class).stream().map(p -> p.get().type()))
        .contains("file-ready");
  }
}
