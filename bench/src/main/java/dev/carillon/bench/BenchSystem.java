package dev.carillon.bench;

import java.util.List;

/**
 * A scheduler the bench can run: its name in the table, its version, how it is configured and how
 * to start it on a fresh database. Implementations are stateless; every run gets a new {@link
 * SchedulerUnderTest} from {@link #open(RunContext)}.
 */
public interface BenchSystem {
  /** Name on the command line ({@code --system}), e.g. {@code dbscheduler}. */
  String id();

  /** Name in the results table. */
  String displayName();

  /** Library versions, for the report. */
  String version();

  /** One line per setting that matters for a fair comparison, for the report. */
  List<String> settings(BenchOptions options);

  /**
   * Whether its runs serve an HTTP API ({@link SchedulerUnderTest#api()}): the {@code api} workload
   * runs only on such systems and skips the others.
   */
  default boolean servesApi() {
    return false;
  }

  /** Creates the system's schema in {@code ctx}'s database and starts it. */
  SchedulerUnderTest open(RunContext ctx);
}
