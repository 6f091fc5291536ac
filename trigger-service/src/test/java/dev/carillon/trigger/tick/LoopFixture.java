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
    this(db, clock, actor, new EpochStore(db.dsl()).begin("trigger", actor));
  }

  /** A loop that writes under {@code fence}. */
  LoopFixture(Database db, Clock clock, String actor, Fence fence) {
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
            Fencing.fixed(fence));
  }

  void apply(TaskDefinition.Builder... defs) {
    tasks.applyAll(java.util.Arrays.stream(defs).map(TaskDefinition.Builder::build).toList());
  }

  double counter(String name, String... tags) {
    var c = registry.find(name).tags(tags).counter();
    return c == null ? 0 : c.count();
  }
}
