package dev.carillon.agents;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;

/** Handler {@code noop}: succeeds at once with a one-line summary. Useful for throughput tests. */
public final class NoopAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "noop";

  /** Creates the agent; {@link java.util.ServiceLoader} needs a public no-argument constructor. */
  public NoopAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) {
    return AgentResult.of("noop " + context.idempotencyKey() + " attempt " + context.attempt());
  }
}
