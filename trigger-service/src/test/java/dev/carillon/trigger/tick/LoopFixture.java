package dev.carillon.trigger.tick;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
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
  final TriggerLoop loop;

  LoopFixture(Database db, Clock clock, String actor) {
    this(db, clock, actor, TickTelemetry.off());
  }

  LoopFixture(Database db, Clock clock, String actor, TickTelemetry telemetry) {
    this.db = db;
    this.tasks = new TaskStore(db.dsl());
    this.instances = new OperatorStore(db.dsl());
    this.leases = new LeaseStore(db.dsl());
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
            telemetry);
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
