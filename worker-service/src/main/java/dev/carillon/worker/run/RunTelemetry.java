package dev.carillon.worker.run;

import dev.carillon.trace.Tracing;
import java.util.Objects;
import java.util.Optional;

/**
 * What the run pool tells beyond its rows: the spans of each run ({@code run}, and {@code end} for
 * the write of its end) in its instance's trace, and the advisor that warns about timeouts below
 * the observed P99.
 *
 * @param tracing where the spans go
 * @param advisor the timeout advisor, or empty (tests)
 */
public record RunTelemetry(Tracing tracing, Optional<TimeoutAdvisor> advisor) {
  public RunTelemetry {
    Objects.requireNonNull(tracing, "tracing");
    Objects.requireNonNull(advisor, "advisor");
  }

  /** No spans, no advice. */
  public static RunTelemetry off() {
    return new RunTelemetry(Tracing.off(), Optional.empty());
  }
}
