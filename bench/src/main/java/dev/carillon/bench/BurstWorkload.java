package dev.carillon.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code n} one-shot instances of the noop handler due at one instant. Measures the due instant to
 * the last SUCCESS committed (observed in the system's store), so it counts picking, running and
 * completing, but not creating rows ahead of time. Its cost ({@link CostProbe}) covers the whole
 * life of the instances: from before they are created to the last SUCCESS.
 */
public final class BurstWorkload implements Workload {
  // How often the store is asked whether the last SUCCESS is committed, once every handler ran:
  // small against a run of seconds, and the query is cheap.
  private static final Duration STORE_POLL = Duration.ofMillis(2);

  private final int n;
  private final CostProbe costs;

  /** A burst whose cost is not measured (the warm-up). */
  public BurstWorkload(int n) {
    this(n, CostProbe.none());
  }

  public BurstWorkload(int n, CostProbe costs) {
    if (n < 1) {
      throw new IllegalArgumentException("n must be at least 1, was " + n);
    }
    this.n = n;
    this.costs = costs;
  }

  @Override
  public String name() {
    return "burst";
  }

  /** Generous: a minute plus 20 ms per instance (400 s for 20,000 — 50 instances/s). */
  Duration timeout() {
    return Duration.ofSeconds(60).plusMillis(20L * n);
  }

  @Override
  public RunResult.Burst run(SchedulerUnderTest system, String systemName, RunContext ctx)
      throws InterruptedException {
    List<String> ids = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      ids.add(String.format("b-%07d", i));
    }
    ctx.recorder().expectDistinct(n);
    try (CostProbe.Span cost = costs.start(ctx)) {
      return run(system, systemName, ctx, ids, cost);
    }
  }

  private RunResult.Burst run(
      SchedulerUnderTest system,
      String systemName,
      RunContext ctx,
      List<String> ids,
      CostProbe.Span cost)
      throws InterruptedException {
    Instant due = system.startBurst(ids);
    Instant deadline = due.plus(timeout());
    // Nothing is due before `due`; waiting for it here lets the compilation counter cover the
    // measured span only (not the JIT's work on the setup just before it).
    for (Instant now = ctx.clock().instant(); now.isBefore(due); now = ctx.clock().instant()) {
      LockSupport.parkNanos(Duration.between(now, due).toNanos());
    }
    cost.due();
    long compiledBefore = compilationMillis();
    Duration endToEnd = null;
    if (ctx.recorder().awaitDistinct(Duration.between(ctx.clock().instant(), deadline))) {
      while (ctx.clock().instant().isBefore(deadline)) {
        if (system.outstanding() == 0) {
          endToEnd = Duration.between(due, ctx.clock().instant());
          break;
        }
        LockSupport.parkNanos(STORE_POLL.toNanos());
      }
    }
    Duration compilation = Duration.ofMillis(compilationMillis() - compiledBefore);
    FireCheck check = FireCheck.byJob(new HashSet<>(ids), ctx.recorder().fires());
    List<Stage> stages = system.burstStages();
    return new RunResult.Burst(systemName, n, endToEnd, stages, check, compilation, cost.end(n));
  }

  /** The JVM's accumulated JIT compilation time, or 0 where the JVM does not count it. */
  static long compilationMillis() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported()
        ? jit.getTotalCompilationTime()
        : 0;
  }
}
