package dev.carillon.trigger.condition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStackExtension;
import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.ConditionStore;
import dev.carillon.store.Database;
import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.TriggerQueries;
import dev.carillon.store.WindowStore;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trigger.tick.DefinitionCache;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DevStackExtension.class)
@Timeout(60)
class ConditionPollerTest {
  private static final Instant H08 = Instant.parse("2026-11-29T08:00:00Z");

  private Database db;
  private Fence fence;
  private OperatorStore instances;
  private final SettableClock clock = new SettableClock(H08);
  private final List<Instance> dispatched = new CopyOnWriteArrayList<>();

  @BeforeEach
  void open() {
    db = TestDatabase.fresh("conditions");
    instances = new OperatorStore(db.dsl());
    fence = new EpochStore(db.dsl()).begin("trigger", "test");
    new TaskStore(db.dsl())
        .applyAll(
            List.of(
                TaskDefinition.builder("ready")
                    .handler("noop")
                    .trigger(
                        new ConditionTrigger(
                            "scripted",
                            Duration.ofMinutes(5),
                            2,
                            "{}",
                            WindowKind.HOURLY,
                            ZoneId.of("UTC")))
                    .build()));
  }

  @AfterEach
  void close() {
    db.close();
  }

  private ConditionPoller poller(String actor) {
    return new ConditionPoller(
        new DefinitionCache(new TriggerQueries(db.dsl())),
        new WindowStore(db.dsl()),
        new ConditionStore(db.dsl()),
        ConditionRegistry.load(getClass().getClassLoader()),
        actor,
        clock,
        dispatched::addAll,
        () -> true,
        Fencing.fixed(fence));
  }

  private List<String> decisions(String window) {
    return instances.windowEvents("ready", window).stream()
        .filter(e -> e.kind() == InstanceEvent.Kind.DECISION)
        .map(InstanceEvent::reason)
        .toList();
  }

  @Test
  void a_flapping_condition_fires_once_per_window_after_the_debounce() {
    // 08:00 false, 08:05 true, 08:10 false (flap), 08:15 true, 08:20 true -> fires at 08:20;
    // later true polls in the same hour create nothing.
    ScriptedCondition.script("ready", false, true, false, true, true, true, true);
    ConditionPoller poller = poller("trigger:1");
    String window = "2026-11-29T08+00:00";
    for (int minute = 0; minute <= 15; minute += 5) {
      clock.set(H08.plus(Duration.ofMinutes(minute)));
      assertThat(poller.pollOnce()).as("poll at 08:%02d", minute).isEmpty();
      assertThat(poller.pollOnce()).as("the same slot is polled once").isEmpty();
    }
    // Leadership moves: a new poller continues the debounce count from the database.
    ConditionPoller next = poller("trigger:2");
    clock.set(H08.plus(Duration.ofMinutes(20)));
    List<Instance> fired = next.pollOnce();
    assertThat(fired).hasSize(1);
    assertThat(fired.get(0).origin()).isEqualTo(Origin.CONDITION);
    assertThat(fired.get(0).windowKey()).isEqualTo(window);
    assertThat(fired.get(0).scheduledAt()).isEqualTo(H08.plus(Duration.ofMinutes(20)));
    clock.set(H08.plus(Duration.ofMinutes(25)));
    assertThat(next.pollOnce()).isEmpty();
    clock.set(H08.plus(Duration.ofMinutes(55)));
    assertThat(next.pollOnce()).isEmpty();
    assertThat(ScriptedCondition.CALLS.get("ready")).isEqualTo(5);
    assertThat(decisions(window))
        .containsExactly(
            "condition false at 08:00:00",
            "condition true (1 of 2) at 08:05:00",
            "condition false at 08:10:00",
            "condition true (1 of 2) at 08:15:00",
            "condition true (2 of 2) at 08:20:00; fired");

    // The next window starts counting afresh.
    clock.set(H08.plus(Duration.ofMinutes(61)));
    assertThat(next.pollOnce()).isEmpty();
    clock.set(H08.plus(Duration.ofMinutes(66)));
    assertThat(next.pollOnce())
        .extracting(Instance::windowKey)
        .containsExactly("2026-11-29T09+00:00");
    assertThat(decisions("2026-11-29T09+00:00"))
        .containsExactly(
            "condition true (1 of 2) at 09:00:00", "condition true (2 of 2) at 09:05:00; fired");
    assertThat(dispatched).hasSize(2);
  }
}
