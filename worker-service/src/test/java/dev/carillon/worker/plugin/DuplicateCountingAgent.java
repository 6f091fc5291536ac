package dev.carillon.worker.plugin;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;

/** A second {@code counting}, listed only in the plugin jar a test builds. */
public final class DuplicateCountingAgent implements AgentTask {
  @Override
  public String type() {
    return "counting";
  }

  @Override
  public AgentResult run(AgentContext context) {
    return AgentResult.of("the other counting agent");
  }
}
