package dev.carillon.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code rate} fires per second for {@code duration}, spread over {@code rate × period} recurring
 * tasks. Measures fire lag (scheduled instant to the job's start) and checks that every planned
 * fire ran exactly once by the last fire plus {@code grace}. Its cost ({@link CostProbe}) covers
 * the fires: from {@link #COST_AHEAD} before the first to the end of the run, not registering the
 * tasks.
 */
public final class SteadyWorkload implements Workload {
  // Once every fire was seen, wait this long past the last planned fire for late duplicates.
  private static final Duration SETTLE = Duration.ofSeconds(1);

  // The "before" snapshot takes a few hundred ms (a Kafka admin client): taken this long before the
  // first fire, it does not miss the first fires' statements, and the idle second it adds is noise.
  static final Duration COST_AHEAD = Duration.ofSeconds(1);

  private final int rate;
  private final Duration duration;
  private final Duration period;
  private final Duration grace;
  private final Duration lead;
  private final CostProbe costs;

  /** A steady workload whose cost is not measured. */
  public SteadyWorkload(
      int rate, Duration duration, Duration period, Duration grace, Duration lead) {
    this(rate, duration, period, grace, lead, CostProbe.none());
  }

  public SteadyWorkload(
      int rate,
      Duration duration,
      Duration period,
      Duration grace,
      Duration lead,
      CostProbe costs) {
    this.rate = rate;
    this.duration = duration;
    this.period = period;
    this.grace = grace;
    this.lead = lead;
    this.costs = costs;
  }

  @Override
  public String name() {
    return "steady";
  }

  @Override
  public RunResult.Steady run(SchedulerUnderTest system, String systemName, RunContext ctx)
      throws InterruptedException {
    Window w = run(system, systemName, ctx, (from, until) -> () -> {}, costs);
    return new RunResult.Steady(systemName, rate, duration, w.tasks(), w.check(), w.cost());
  }

  /**
   * Extra load started once the plan's tasks are registered, over {@code [from, until)}: the plan's
   * first to last fire. The returned handle stops it early (when the run fails).
   */
  interface Load {
    AutoCloseable start(Instant from, Instant until);
  }

  /** The plan's size, what the check found and what the fires cost. */
  record Window(long tasks, FireCheck check, Cost cost) {}

  /** The steady run with {@code load} running beside the fires; its cost is not measured. */
  Window run(SchedulerUnderTest system, String systemName, RunContext ctx, Load load)
      throws InterruptedException {
    return run(system, systemName, ctx, load, CostProbe.none());
  }

  private Window run(
      SchedulerUnderTest system, String systemName, RunContext ctx, Load load, CostProbe costs)
      throws InterruptedException {
    Instant registration = ctx.clock().instant();
    SteadyPlan plan =
        SteadyPlan.of(registration.plus(lead), rate, duration, period, system.fireResolution());
    Set<FireKey> expected = plan.expectedFires();
    ctx.recorder().expectDistinct(expected.size());
    system.startSteady(plan);
    Instant registered = ctx.clock().instant();
    if (!registered.isBefore(plan.start())) {
      throw new BenchException(
          systemName
              + " took "
              + Duration.between(registration, registered).toMillis()
              + " ms to register "
              + plan.tasks().size()
              + " tasks, longer than the lead of "
              + lead.toMillis()
              + " ms; pass a longer --lead");
    }
    Instant snapshot = plan.start().minus(COST_AHEAD);
    for (Instant now = ctx.clock().instant(); now.isBefore(snapshot); now = ctx.clock().instant()) {
      LockSupport.parkNanos(Duration.between(now, snapshot).toNanos());
    }
    try (CostProbe.Span cost = costs.start(ctx)) {
      Instant end = plan.lastFire().plus(grace);
      boolean all;
      try (AutoCloseable extra = load.start(plan.start(), plan.lastFire())) {
        all = ctx.recorder().awaitDistinct(Duration.between(ctx.clock().instant(), end));
      } catch (InterruptedException | RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new BenchException("the load beside the steady fires failed to stop: " + e, e);
      }
      if (all) {
        // Everything ran early enough; give a duplicate a moment to show instead of the full grace.
        Instant settled = plan.lastFire().plus(SETTLE);
        while (ctx.clock().instant().isBefore(settled)) {
          LockSupport.parkNanos(Duration.between(ctx.clock().instant(), settled).toNanos());
        }
      }
      FireCheck check = FireCheck.byFire(expected, ctx.recorder().fires());
      return new Window(plan.tasks().size(), check, cost.end(expected.size()));
    }
  }
}
