package dev.carillon.bench;

import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.EpochStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.plan.PlannerSettings;
import dev.carillon.trigger.plan.TickPlanner;
import dev.carillon.trigger.tick.TriggerLoop;
import dev.carillon.trigger.tick.TriggerMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jooq.DSLContext;

/** The tasks and the trigger loop of the benches that drive ticks by hand on a settable clock. */
final class BenchTrigger {
  private BenchTrigger() {}

  /**
   * {@code n} tasks {@code <prefix>-0000000...}, daily at 08:00 UTC, overlap ALLOW: each day's
   * firing tick does the same work (creates PENDING rows) whether or not the previous day's
   * instances ran.
   */
  static List<TaskDefinition> dailyAtEight(String prefix, int n) {
    List<TaskDefinition> defs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      defs.add(
          TaskDefinition.builder(String.format("%s-%07d", prefix, i))
              .handler("noop")
              .cron("0 0 8 * * ?", ZoneId.of("UTC"), WindowKind.DAILY)
              .overlap(OverlapPolicy.ALLOW)
              .build());
    }
    return defs;
  }

  /**
   * A trigger loop on {@code dsl} with one-second ticks, run by calling {@link
   * TriggerLoop#tickOnce()}. It leads by construction: it takes the trigger epoch itself as {@code
   * actor}.
   */
  static TriggerLoop loop(
      DSLContext dsl, Clock clock, String actor, Consumer<List<Instance>> dispatch) {
    return new TriggerLoop(
        new TaskStore(dsl),
        new WindowStore(dsl),
        new TriggerQueries(dsl),
        new TickPlanner(PlannerSettings.defaults(actor)),
        actor,
        clock,
        Duration.ofSeconds(1),
        new TriggerMetrics(new SimpleMeterRegistry()),
        dispatch,
        () -> true,
        Fencing.fixed(new EpochStore(dsl).begin("trigger", actor)));
  }
}
