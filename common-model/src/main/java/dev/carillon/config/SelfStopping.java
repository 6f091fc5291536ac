package dev.carillon.config;

import java.util.concurrent.CompletionStage;

/**
 * A service that may decide to stop its process itself (a worker whose runs will not stop), so that
 * the orchestrator restarts it. {@link ServiceLauncher} exits the JVM with the code it completes
 * with; the shutdown hook then closes the service as on SIGTERM.
 */
public interface SelfStopping {
  /** Completes with the process exit code when the service wants its process to exit. */
  CompletionStage<Integer> exitRequested();
}
