package dev.carillon.worker.plugin;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;

/** Type {@code unreviewed}, listed only in a plugin jar the allowlist test builds. */
public final class UnreviewedAgent implements AgentTask {
  @Override
  public String type() {
    return "unreviewed";
  }

  @Override
  public AgentResult run(AgentContext context) {
    return AgentResult.of("unreviewed");
  }
}
