package dev.carillon.bench.schedules;

import dev.carillon.bench.schedules.ScheduleMix.Cadence;
import dev.carillon.bench.schedules.ScheduleMix.Group;
import dev.carillon.model.schedule.CronSchedule;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which UTC seconds of a day the tasks of a {@link ScheduleMix} fire in, and how many fire in each:
 * the trigger's work per tick. Zones that share an offset on that day fire their 08:00 in the same
 * UTC second, and every hourly task in a zone with a whole-hour offset fires at the top of every
 * UTC hour, so the busiest second is an offset group's 08:00 plus the hourly tasks of that hour.
 * Fire times come from {@link CronSchedule}, the trigger's own cron math, in each task's zone.
 */
public final class FireSeconds {
  /**
   * The tasks that fire in one UTC second.
   *
   * @param at the second
   * @param daily daily tasks that fire in it
   * @param hourly hourly tasks that fire in it
   * @param dailyZones the zones whose daily tasks fire in it, in order of first appearance
   */
  public record Second(Instant at, int daily, int hourly, List<ZoneId> dailyZones) {
    /** Every task that fires in this second. */
    public int tasks() {
      return daily + hourly;
    }
  }

  private FireSeconds() {}

  /**
   * Every UTC second of {@code day} (from 00:00:00Z inclusive to the next day's 00:00:00Z
   * exclusive) in which a task of {@code counts} fires, in time order.
   */
  public static SortedMap<Instant, Second> of(Map<Group, Integer> counts, LocalDate day) {
    Instant start = day.atStartOfDay(ZoneOffset.UTC).toInstant();
    Instant end = start.plusSeconds(86_400);
    SortedMap<Instant, Second> out = new TreeMap<>();
    counts.forEach(
        (group, n) -> {
          CronSchedule cron = CronSchedule.parse(group.cadence().cron(), group.zone());
          // Fire times are whole seconds: (start - 1 s, end - 1 s] is [start, end).
          for (Instant at : cron.fireTimes(start.minusSeconds(1), end.minusSeconds(1), 100)) {
            Second before = out.getOrDefault(at, new Second(at, 0, 0, List.of()));
            out.put(at, plus(before, group, n));
          }
        });
    return out;
  }

  /**
   * The second of {@code day} in which the most tasks fire; the earliest of equals.
   *
   * @throws IllegalArgumentException if nothing fires that day
   */
  public static Second busiest(Map<Group, Integer> counts, LocalDate day) {
    Second best = null;
    for (Second s : of(counts, day).values()) {
      if (best == null || s.tasks() > best.tasks()) {
        best = s;
      }
    }
    if (best == null) {
      throw new IllegalArgumentException("no task fires on " + day);
    }
    return best;
  }

  private static Second plus(Second s, Group group, int n) {
    if (group.cadence() == Cadence.HOURLY) {
      return new Second(s.at(), s.daily(), s.hourly() + n, s.dailyZones());
    }
    List<ZoneId> zones = new ArrayList<>(s.dailyZones());
    zones.add(group.zone());
    return new Second(s.at(), s.daily() + n, s.hourly(), List.copyOf(zones));
  }
}
