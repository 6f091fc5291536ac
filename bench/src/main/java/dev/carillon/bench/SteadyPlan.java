package dev.carillon.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The steady workload as fixed-rate tasks: {@code rate × period} tasks, each firing every {@code
 * period}, with first fires spread evenly over the first period so that the whole set fires {@code
 * rate} times per second, for fire instants in {@code [start, start + duration)}.
 *
 * <p>All instants are whole milliseconds, because Quartz stores milliseconds.
 */
public record SteadyPlan(
    Instant start, int rate, Duration duration, Duration period, List<Task> tasks) {

  /** One recurring task of the plan: fires {@code fires} times, {@code period} apart. */
  public record Task(String id, Instant firstFire, int fires) {}

  public SteadyPlan {
    tasks = List.copyOf(tasks);
  }

  /**
   * Plans {@code rate} fires per second for {@code duration}, from {@code start}, at millisecond
   * resolution (see {@link #of(Instant, int, Duration, Duration, Duration)}).
   */
  public static SteadyPlan of(Instant start, int rate, Duration duration, Duration period) {
    return of(start, rate, duration, period, Duration.ofMillis(1));
  }

  /**
   * Plans {@code rate} fires per second for {@code duration}, from {@code start} rounded up to a
   * multiple of {@code resolution}. Every first fire lies on a multiple of {@code resolution}: with
   * 1 ms the first fires are spread evenly ({@code period / tasks} apart); with 1 s (a scheduler
   * whose cron fires on whole seconds) the tasks of each second share that second's instant, so
   * there are still {@code rate} fires per second, in one group at the start of each second.
   *
   * @throws IllegalArgumentException if the rate or durations are not positive, if the period is
   *     longer than the duration or not a multiple of the resolution, or if {@code rate × period}
   *     is not a whole number of tasks
   */
  public static SteadyPlan of(
      Instant start, int rate, Duration duration, Duration period, Duration resolution) {
    if (rate < 1) {
      throw new IllegalArgumentException("rate must be at least 1 per second, was " + rate);
    }
    if (period.toMillis() < 1 || duration.compareTo(period) < 0) {
      throw new IllegalArgumentException(
          "period must be at least 1ms and at most the duration (" + duration + "), was " + period);
    }
    long res = resolution.toMillis();
    if (res < 1 || period.toMillis() % res != 0) {
      throw new IllegalArgumentException(
          "period must be a multiple of the resolution " + resolution + ", was " + period);
    }
    long periodMs = period.toMillis();
    if ((rate * periodMs) % 1000 != 0) {
      throw new IllegalArgumentException(
          "rate × period must be a whole number of tasks, was " + rate + "/s × " + period);
    }
    int taskCount = (int) (rate * periodMs / 1000);
    long durationMs = duration.toMillis();
    long startMs = start.toEpochMilli();
    Instant origin = Instant.ofEpochMilli(Math.floorDiv(startMs + res - 1, res) * res);
    List<Task> tasks = new ArrayList<>(taskCount);
    for (int i = 0; i < taskCount; i++) {
      long offset = i * periodMs / taskCount / res * res;
      int fires = (int) ((durationMs - offset + periodMs - 1) / periodMs);
      tasks.add(new Task(String.format("t-%06d", i), origin.plusMillis(offset), fires));
    }
    return new SteadyPlan(origin, rate, duration, period, tasks);
  }

  /** Every fire of the plan. */
  public Set<FireKey> expectedFires() {
    Set<FireKey> all = new HashSet<>();
    for (Task t : tasks) {
      for (int k = 0; k < t.fires(); k++) {
        all.add(FireKey.of(t.id(), t.firstFire().plus(period.multipliedBy(k))));
      }
    }
    return all;
  }

  /** The last fire instant of the plan. */
  public Instant lastFire() {
    return tasks.stream()
        .map(t -> t.firstFire().plus(period.multipliedBy(t.fires() - 1L)))
        .max(Instant::compareTo)
        .orElse(start);
  }

  /** Tasks by id, for systems that look the next fire up when one completes. */
  public Map<String, Task> tasksById() {
    return tasks.stream().collect(Collectors.toUnmodifiableMap(Task::id, Function.identity()));
  }

  /**
   * The fire after {@code scheduled} for {@code task}, or empty after its last fire. Computed from
   * the first fire, not from the completion time, so the schedule never drifts.
   */
  public Optional<Instant> nextFire(Task task, Instant scheduled) {
    long k = Duration.between(task.firstFire(), scheduled).toMillis() / period.toMillis();
    return k + 1 < task.fires()
        ? Optional.of(task.firstFire().plus(period.multipliedBy(k + 1)))
        : Optional.empty();
  }
}
