package dev.carillon.worker.run;

import dev.carillon.model.instance.Progress;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A run's latest progress report and whether it was written: the agent reports from any thread
 * ({@code AgentContext.heartbeat}, an exec agent's progress lines), the heartbeat writes the report
 * with the lease when it changed since it was last written, and the end write takes what is left.
 *
 * <p>A report is {@linkplain #unsent unsent} until the very report was {@linkplain #written
 * written}: one that comes while the heartbeat's statement is on its way stays unsent and goes with
 * the next beat. Thread-safe, lock-free.
 */
final class RunProgress {
  private final AtomicReference<Progress> latest = new AtomicReference<>();
  private volatile Progress written;

  /** Keeps {@code progress} as the latest report. */
  void report(Progress progress) {
    latest.set(progress);
  }

  /** The latest report when it was not written yet, or {@code null}. */
  Progress unsent() {
    Progress p = latest.get();
    return p == written ? null : p;
  }

  /** The latest report, written or not, or {@code null}. */
  Progress latest() {
    return latest.get();
  }

  /** {@code progress} (as returned by {@link #unsent}) is now stored with the instance. */
  void written(Progress progress) {
    written = progress;
  }
}
