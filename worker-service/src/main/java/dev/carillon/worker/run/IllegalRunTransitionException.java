package dev.carillon.worker.run;

import dev.carillon.model.CarillonException;

/**
 * A change of a run's state that {@link RunState}'s transition table forbids: a bug, not a race.
 */
final class IllegalRunTransitionException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final RunState from;
  private final RunState to;

  IllegalRunTransitionException(RunState from, RunState to, Run run) {
    super("illegal run transition " + from + " -> " + to + " (" + run + ")");
    this.from = from;
    this.to = to;
  }

  RunState from() {
    return from;
  }

  RunState to() {
    return to;
  }
}
