package dev.carillon.bench;

/**
 * A load pattern that any {@link SchedulerUnderTest} can be driven through. The workload owns the
 * measurement and the exactly-once check; the system only schedules and executes.
 */
public interface Workload {
  /** Name on the command line and in the report. */
  String name();

  /** Runs once against a freshly opened system and returns the figures. */
  RunResult run(SchedulerUnderTest system, String systemName, RunContext ctx)
      throws InterruptedException;
}
