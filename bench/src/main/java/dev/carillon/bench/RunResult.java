package dev.carillon.bench;

import java.time.Duration;
import java.util.List;

/** The figures of one measured run of one workload on one system. */
public sealed interface RunResult {
  /** The system's display name. */
  String system();

  /** {@code burst}, {@code steady} or {@code api}. */
  String workload();

  /**
   * A burst: {@code n} instances due at once.
   *
   * @param endToEnd from the due instant to the last SUCCESS visible in the store; null if the run
   *     timed out
   * @param compilation the JIT's compilation time during that span (all compiler threads, as {@link
   *     java.lang.management.CompilationMXBean} counts it): the warm-up runs until it is small
   * @param cost what the run cost PostgreSQL and Kafka, from creating the instances to the last
   *     SUCCESS, per instance
   */
  record Burst(
      String system,
      int n,
      Duration endToEnd,
      List<Stage> stages,
      FireCheck check,
      Duration compilation,
      Cost cost)
      implements RunResult {
    public Burst {
      stages = List.copyOf(stages);
      java.util.Objects.requireNonNull(cost, "cost");
    }

    /** A burst whose cost was not measured. */
    public Burst(
        String system,
        int n,
        Duration endToEnd,
        List<Stage> stages,
        FireCheck check,
        Duration compilation) {
      this(system, n, endToEnd, stages, check, compilation, Cost.unmeasured(n));
    }

    @Override
    public String workload() {
      return "burst";
    }

    /** End-to-end instances per second, NaN if the run did not finish. */
    public double perSecond() {
      return endToEnd == null ? Double.NaN : n / (endToEnd.toNanos() / 1e9);
    }
  }

  /**
   * A steady run; the lag figures are in {@link FireCheck#lag()}.
   *
   * @param cost what the run cost PostgreSQL and Kafka from just before its first fire to its end,
   *     per planned fire
   */
  record Steady(String system, int rate, Duration duration, long tasks, FireCheck check, Cost cost)
      implements RunResult {
    public Steady {
      java.util.Objects.requireNonNull(cost, "cost");
    }

    @Override
    public String workload() {
      return "steady";
    }
  }

  /**
   * A steady run with HTTP API clients listing instances throughout its fires: the fire lag (in
   * {@link FireCheck#lag()}) to set beside a steady run without them, and the API's figures.
   *
   * @param clients concurrent API clients
   * @param api the clients' requests
   */
  record Api(
      String system,
      int rate,
      Duration duration,
      long tasks,
      FireCheck check,
      int clients,
      ApiStats api)
      implements RunResult {
    @Override
    public String workload() {
      return "api";
    }
  }

  /** A run that threw instead of finishing; the report shows it instead of hiding it. */
  record Failed(String system, String workload, String error) implements RunResult {}
}
