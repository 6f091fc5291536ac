package dev.carillon.worker.run;

import dev.carillon.api.AgentContext;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.task.RunSpec;

/**
 * How the runs of one {@link BuiltInHandler built-in handler} execute: a process ({@code exec}) or
 * a remote endpoint ({@code http}). The worker wires one per built-in handler it offers; a task
 * naming a built-in handler the worker does not offer fails like one naming a missing plugin.
 * Implementations are thread-safe: every pool thread asks for executions.
 */
public interface AgentKind {
  /**
   * The execution of one run, not started yet.
   *
   * @param spec the task's handler and params, where the kind's settings are
   * @param context what the run knows about itself; progress goes to {@link AgentContext#heartbeat}
   * @param records the run's checkpoints and effects: what the agent is told when it starts, and
   *     where its checkpoint and effect reports go
   * @return the execution; one that ends FAILED, non-retryable, when the task's settings are
   *     unusable
   */
  AgentExecution execution(RunSpec spec, AgentContext context, RunRecords records);
}
