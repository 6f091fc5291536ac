package dev.carillon.model.instance;

import dev.carillon.model.CarillonException;

/** A status change that the instance state machine forbids. */
public final class IllegalTransitionException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final InstanceStatus from;
  private final InstanceStatus to;

  public IllegalTransitionException(InstanceStatus from, InstanceStatus to) {
    super("illegal instance transition " + from + " -> " + to);
    this.from = from;
    this.to = to;
  }

  public InstanceStatus from() {
    return from;
  }

  public InstanceStatus to() {
    return to;
  }
}
