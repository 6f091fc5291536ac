package dev.carillon.model.task;

import dev.carillon.model.schedule.WindowKind;
import java.time.ZoneId;

/**
 * What wakes a task: exactly one of five kinds, each a record holding only its own settings. Code
 * that depends on the kind tests the type ({@code instanceof CronTrigger cron}, or {@link
 * TimeTrigger} for the two whose fire times follow from the clock alone: cron and one-shot {@link
 * AtTrigger}); nothing infers the kind from which fields happen to be set.
 *
 * <p>Every trigger names the window kind and zone of its task's windows. Only time and condition
 * triggers compute windows from the clock; a dependency task's windows are copied from its
 * upstreams (whose kind must match, see {@link TaskGraph}), an event task's are named by the
 * record. Their kind and zone still say how the task is shown ({@code schedctl why}) and joined.
 */
public sealed interface Trigger
    permits TimeTrigger, DependencyTrigger, EventTrigger, ConditionTrigger {

  /** The kind, as stored in {@code task_definition.trigger_kind}. */
  TriggerKind kind();

  /** The window kind that turns an instant (or an upstream's window) into this task's window. */
  WindowKind window();

  /** The zone windows are computed in. */
  ZoneId zone();
}
