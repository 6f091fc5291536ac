package dev.carillon.worker.run;

import dev.carillon.store.Outcome;
import java.time.Duration;

/**
 * One execution of an agent for one run: the seam where the kind of agent lives. The {@link Runner}
 * owns the rest of a run (its lease, deadline, state and end); an execution only runs the agent and
 * stops it when asked. {@link PluginExecution} runs a Java plugin in this process; the built-in
 * handlers' kinds ({@link AgentKind}) run a process tree or call an endpoint.
 */
public interface AgentExecution {
  /**
   * Runs the agent on the calling thread (a pool thread) until it ends, and turns how it ended into
   * the outcome to record. Never throws: whatever the agent throws is a FAILED outcome. Called
   * once. An execution that started processes returns only once they are gone, so that the run's
   * slot is given back only then.
   */
  Outcome execute();

  /**
   * Asks the agent to stop now (its deadline passed, its lease was lost, or the worker shuts down):
   * sets the cancellation the agent can see and interrupts what it waits on. Returns at once, from
   * any thread, any number of times, before, during or after {@link #execute}. An agent that
   * ignores it keeps its thread until it returns; its outcome is then discarded.
   */
  void stop();

  /**
   * Whether {@link #execute} returns, after a {@link #stop}, only once the agent is really gone (a
   * process tree killed, a request cancelled), within a bound. Then a timeout is recorded when it
   * returns, not when the deadline passes: the instance cannot be retried elsewhere while this
   * attempt still runs. A plugin's thread may never return, so its timeout is recorded at once.
   */
  default boolean endsWhenStopped() {
    return false;
  }

  /**
   * How long the agent may take, by design, to end after {@link #stop}: for a process tree, its
   * SIGTERM grace plus the wait after SIGKILL. The worker's stop grace comes on top before a run
   * counts as abandoned, and a worker that cannot renew a lease stops such a run this much earlier
   * (see {@code LeaseFence}), so that it has ended before the lease can expire.
   */
  default Duration stopAllowance() {
    return Duration.ZERO;
  }

  /**
   * An execution that runs nothing and ends with {@code outcome}: for a run whose settings turn out
   * to be unusable when it starts.
   */
  static AgentExecution ending(Outcome outcome) {
    return new AgentExecution() {
      @Override
      public Outcome execute() {
        return outcome;
      }

      @Override
      public void stop() {}
    };
  }
}
