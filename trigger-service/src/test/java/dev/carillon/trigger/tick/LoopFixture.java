package dev.carillon.trigger.tick;

import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.plan.PlannerSettings;
import dev.carillon.trigger.plan.TickPlanner;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A trigger loop on a test database, with the dispatched instances collected in a list. */
final class LoopFixture {
  final Database db;
  final TaskStore tasks;
  final OperatorStore instances;
  final LeaseStore leases;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final List<Instance> dispatched = new CopyOnWriteArrayList<>();
  final Fence fence;
  final TriggerLoop loop;

  /** A loop that leads: it takes the next trigger epoch, fencing out every fixture before it. */
  LoopFixture(Database db, Clock clock, String actor) {
    this(db, clock, actor, TickTelemetry.off());
  }

  /** A leading loop with the spans and alerts of {@code telemetry}. */
  LoopFixture(Database db, Clock clock, String actor, TickTelemetry telemetry) {
    this(db, clock, actor, new EpochStore(db.dsl()).begin("trigger", actor), telemetry);
  }

  /** A loop that writes under {@code fence}. */
  LoopFixture(Database db, Clock clock, String actor, Fence fence) {
    this(db, clock, actor, fence, TickTelemetry.off(), Duration.ZERO);
  }

  /** A leading loop that creates windows {@code createAhead} before their fire time. */
  LoopFixture(Database db, Clock clock, String actor, Duration createAhead) {
    this(
        db,
        clock,
        actor,
        new EpochStore(db.dsl()).begin("trigger", actor),
        TickTelemetry.off(),
        createAhead);
  }

  private LoopFixture(
      Database db, Clock clock, String actor, Fence fence, TickTelemetry telemetry) {
    this(db, clock, actor, fence, telemetry, Duration.ZERO);
  }

  private LoopFixture(
      Database db,
      Clock clock,
      String actor,
      Fence fence,
      TickTelemetry telemetry,
      Duration createAhead) {
    this.db = db;
    this.tasks = new TaskStore(db.dsl());
    this.instances = new OperatorStore(db.dsl());
    this.leases = new LeaseStore(db.dsl());
    this.fence = fence;
    this.loop =
        new TriggerLoop(
            tasks,
            new WindowStore(db.dsl()),
            new TriggerQueries(db.dsl()),
            new TickPlanner(PlannerSettings.defaults(actor)),
            actor,
            clock,
            Duration.ofSeconds(1),
            new TriggerMetrics(registry),
            dispatched::addAll,
            () -> true,
            Fencing.fixed(fence),
            new DefinitionCache(new TriggerQueries(db.dsl())),
            telemetry,
            createAhead);
  }

  void apply(TaskDefinition.Builder... defs) {
    tasks.applyAll(java.util.Arrays.stream(defs).map(TaskDefinition.Builder::build).toList());
  }

  /** The sum of the counters named {@code name} with {@code tags}, whatever their other tags. */
  double counter(String name, String... tags) {
    return registry.find(name).tags(tags).counters().stream()
        .mapToDouble(io.micrometer.core.instrument.Counter::count)
        .sum();
  }
}
