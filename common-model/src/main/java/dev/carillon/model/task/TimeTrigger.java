package dev.carillon.model.task;

import dev.carillon.model.schedule.FireTime;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A trigger whose fire times follow from the clock alone: a cron expression's ({@link CronTrigger})
 * or one instant's ({@link AtTrigger}). The trigger loop evaluates them from a cursor; {@code
 * next}, the task list's next fire and backfills read them the same way, whatever the kind.
 */
public sealed interface TimeTrigger extends Trigger permits CronTrigger, AtTrigger {

  /**
   * Fire times in {@code (fromExclusive, upToInclusive]}, ascending, at most {@code limit}, each
   * with the wall-clock time it names in the trigger's zone.
   *
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  List<FireTime> fireTimesDetailed(Instant fromExclusive, Instant upToInclusive, int limit);

  /** Like {@link #fireTimesDetailed}, the instants only. */
  default List<Instant> fireTimes(Instant fromExclusive, Instant upToInclusive, int limit) {
    return fireTimesDetailed(fromExclusive, upToInclusive, limit).stream()
        .map(FireTime::instant)
        .toList();
  }

  /** The first fire time strictly after {@code after}, or empty when it never fires again. */
  Optional<Instant> nextAfter(Instant after);

  /** One line for people, e.g. {@code cron 0 0 8 * * ? in Europe/Berlin}. */
  String describe();
}
