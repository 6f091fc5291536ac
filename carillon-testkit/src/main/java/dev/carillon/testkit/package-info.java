/**
 * Test support for agent plugins, published as {@code carillon-testkit}: add it with {@code test}
 * scope next to {@code worker-api}.
 *
 * <ul>
 *   <li>{@link dev.carillon.testkit.TestAgentContext}: an {@link dev.carillon.api.AgentContext} for
 *       unit tests, built with sensible defaults, that records heartbeats, checkpoints and effects
 *       and lets the test cancel the run, stop it where a worker's death would, and hand the next
 *       attempt what the last one left. Use it instead of implementing the context by hand: the
 *       context is {@link dev.carillon.api.Stability.Evolving} and may gain methods.
 *   <li>{@link dev.carillon.testkit.AgentHarness}: runs a plugin in the real worker against the
 *       PostgreSQL and Kafka of {@code devstack} and returns how the run ended ({@link
 *       dev.carillon.testkit.RunOutcome}) with its recorded history, checkpoints and effects; it
 *       can kill a worker process mid-run and retry the instance, for resumable agents.
 * </ul>
 *
 * <p>For time, pass {@code dev.carillon.testing.SettableClock} (from {@code devstack}, which this
 * module brings along) both to the context's builder and to the agent.
 */
@dev.carillon.api.Stability.Evolving
package dev.carillon.testkit;
