package dev.carillon.trigger.condition;

import dev.carillon.api.AgentCondition;
import dev.carillon.api.ConditionContext;
import dev.carillon.election.Fencing;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.ConditionStore;
import dev.carillon.store.ConditionStore.State;
import dev.carillon.store.Decision;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.tick.DefinitionCache;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the conditions of condition-triggered tasks. Within the window that contains "now" (the
 * task's window kind and zone), polls fall on slots {@code windowStart + k * every}; each slot is
 * evaluated at most once. A true poll extends the run of consecutive true polls, a false one (or a
 * throwing one) resets it; when the run reaches the debounce count the window's instance is created
 * (origin CONDITION) and the task is not polled again until the next window. Every evaluation is
 * written to the event log as a decision ({@code condition false at 08:05:00}, {@code condition
 * true (2 of 2) at 08:15:00; fired}), which {@code schedctl why} shows.
 *
 * <p>The debounce state lives in {@code condition_state}, so a new leader continues the count. The
 * instance is inserted before the state is saved: a crash in between makes the next poll insert
 * again, which the UNIQUE window index turns into a no-op.
 *
 * <p>{@link #pollOnce()} is one pass over all condition tasks; tests move a settable clock and call
 * it. Passes are serialized.
 */
public final class ConditionPoller {
  private static final Logger log = LoggerFactory.getLogger(ConditionPoller.class);
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

  private final DefinitionCache tasks;
  private final WindowStore windows;
  private final ConditionStore states;
  private final ConditionRegistry registry;
  private final String actor;
  private final Clock clock;
  private final Consumer<List<Instance>> dispatch;
  private final BooleanSupplier mayCommit;
  private final Fencing fencing;
  private final Set<String> reportedMissing = new HashSet<>();
  private final Object lock = new Object();

  /**
   * @param tasks the trigger service's definitions (the cache its loops share)
   * @param registry the condition plugins
   * @param clock the poll instants
   * @param dispatch receives created instances; must not block
   * @param mayCommit asked before writing; false (leadership lost) drops the pass
   * @param fencing the leader's fence for each pass, and where a fenced write is reported
   */
  public ConditionPoller(
      DefinitionCache tasks,
      WindowStore windows,
      ConditionStore states,
      ConditionRegistry registry,
      String actor,
      Clock clock,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing) {
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.states = Objects.requireNonNull(states, "states");
    this.registry = Objects.requireNonNull(registry, "registry");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.mayCommit = Objects.requireNonNull(mayCommit, "mayCommit");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
  }

  /**
   * Evaluates every condition task whose current slot has not been evaluated yet.
   *
   * @return the instances created by this pass
   * @throws dev.carillon.election.NotLeaderException if this instance does not lead
   * @throws FencedException if another leader took over (reported to {@link Fencing#fenced})
   */
  public List<Instance> pollOnce() {
    synchronized (lock) {
      Fence fence = fencing.fence();
      try {
        return pollAll(fence);
      } catch (FencedException e) {
        fencing.fenced(e);
        throw e;
      }
    }
  }

  private List<Instance> pollAll(Fence fence) {
    Instant now = clock.instant();
    Map<String, State> all = null;
    List<Instance> created = new ArrayList<>();
    for (TaskDefinition t : tasks.refresh()) {
      if (!(t.trigger() instanceof ConditionTrigger c) || t.paused()) {
        continue;
      }
      if (all == null) {
        all = states.all();
      }
      poll(t, c, all.get(t.id()), now, fence).ifPresent(created::add);
    }
    if (!created.isEmpty()) {
      dispatch.accept(created);
    }
    return created;
  }

  private Optional<Instance> poll(
      TaskDefinition t, ConditionTrigger c, State state, Instant now, Fence fence) {
    Window window = t.window().windowOf(now, t.zone());
    long everyMs = c.every().toMillis();
    long sinceStart = Math.max(0, now.toEpochMilli() - window.start().toEpochMilli());
    Instant slot = window.start().plusMillis(sinceStart / everyMs * everyMs);
    boolean sameWindow = state != null && state.windowKey().equals(window.key());
    if (sameWindow && (!slot.isAfter(state.lastSlot()) || state.consecutive() >= c.debounce())) {
      return Optional.empty(); // this slot was evaluated, or the window already fired
    }
    Optional<AgentCondition> plugin = registry.get(c.type());
    if (plugin.isEmpty()) {
      if (reportedMissing.add(t.id() + "/" + c.type())) {
        log.error(
            "Task {}: no condition plugin of type '{}' (loaded: {}); not polled",
            t.id(),
            c.type(),
            registry.types());
      }
      return Optional.empty();
    }
    boolean held;
    String error = null;
    try {
      held =
          plugin
              .get()
              .test(
                  new ConditionContext(
                      t.id(), window.key(), window.start(), window.end(), now, c.paramsJson()));
    } catch (Exception e) {
      // A source that cannot be read does not hold; the message goes to the event log.
      held = false;
      error = e.toString();
    }
    int run = held ? (sameWindow ? state.consecutive() : 0) + 1 : 0;
    String at = TIME.format(slot.atZone(t.zone()));
    String reason =
        held
            ? "condition true (" + run + " of " + c.debounce() + ") at " + at
            : "condition false at " + at + (error == null ? "" : " (" + error + ")");
    boolean fire = run >= c.debounce();
    if (!mayCommit.getAsBoolean()) {
      return Optional.empty();
    }
    Optional<Instance> created = Optional.empty();
    if (fire) {
      reason = reason + "; fired";
      created =
          windows
              .create(
                  List.of(
                      NewInstance.pending(
                          t.id(),
                          window,
                          slot,
                          Origin.CONDITION,
                          t.timeout(),
                          t.retry().maxRetries())),
                  actor,
                  fence)
              .stream()
              .filter(i -> i.status() == InstanceStatus.PENDING)
              .findFirst();
    }
    windows.recordDecisions(
        List.of(new Decision(t.id(), window.key(), null, actor, reason)), fence);
    states.save(t.id(), new State(window.key(), slot, run), fence);
    return created;
  }
}
