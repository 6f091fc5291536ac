package dev.carillon.model.agent;

import java.util.Optional;

/**
 * The handlers every worker has without a plugin: the agent is not Java code in the worker but a
 * process it starts ({@link #EXEC}) or an endpoint it calls ({@link #HTTP}). A task names one as
 * its {@code handler} and says what to run in {@code params.exec} or {@code params.http}; a plugin
 * of the same name is never used for it.
 */
public enum BuiltInHandler {
  /** A command run as a process tree of its own: {@link ExecCommand}. */
  EXEC("exec"),
  /** An endpoint the context is POSTed to: {@link HttpEndpoint}. */
  HTTP("http");

  private final String handler;

  BuiltInHandler(String handler) {
    this.handler = handler;
  }

  /** The handler name a task writes, which is also its key in params. */
  public String handler() {
    return handler;
  }

  /** The built-in handler named {@code handler}, or empty for a plugin's. */
  public static Optional<BuiltInHandler> of(String handler) {
    for (BuiltInHandler b : values()) {
      if (b.handler.equals(handler)) {
        return Optional.of(b);
      }
    }
    return Optional.empty();
  }
}
