package dev.carillon.agents;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentCondition;
import dev.carillon.api.ConditionContext;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Condition {@code file-ready}: holds when the file {@code params.path} exists, holds at least
 * {@code params.minBytes} bytes (default 1) and was modified inside the current window. A sample
 * for condition-plugin authors; params: {@code {path: /data/export.csv, minBytes: 1000}}.
 */
public final class FileReadyCondition implements AgentCondition {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String type() {
    return "file-ready";
  }

  @Override
  public boolean test(ConditionContext context) throws Exception {
    JsonNode params = JSON.readTree(context.paramsJson());
    JsonNode path = params.get("path");
    if (path == null || !path.isTextual()) {
      throw new IllegalArgumentException("params.path is required");
    }
    long minBytes = params.path("minBytes").asLong(1);
    Path file = Path.of(path.asText());
    if (!Files.isRegularFile(file) || Files.size(file) < minBytes) {
      return false;
    }
    return !Files.getLastModifiedTime(file).toInstant().isBefore(context.windowStart());
  }
}
