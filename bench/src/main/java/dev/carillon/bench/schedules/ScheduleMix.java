package dev.carillon.bench.schedules;

import dev.carillon.bench.schedules.ZoneWeights.ZoneWeight;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A million people's schedules, in small: {@code n} tasks whose zones are drawn from population
 * weights, nine in ten daily at 08:00 local and one in ten hourly. Pure and deterministic: the same
 * {@code n}, seed and weights give the same tasks.
 */
public final class ScheduleMix {
  /** Every {@code HOURLY_EVERY}-th task (ids ending in 9) is hourly: exactly 10 % of them. */
  public static final int HOURLY_EVERY = 10;

  /** How often a task fires, with its cron expression (Quartz, seconds first) and window kind. */
  public enum Cadence {
    /** 08:00:00 local time, one instance per local day. */
    DAILY("0 0 8 * * ?", WindowKind.DAILY),
    /** Every local hour at :00:00, one instance per local hour. */
    HOURLY("0 0 * * * ?", WindowKind.HOURLY);

    private final String cron;
    private final WindowKind window;

    Cadence(String cron, WindowKind window) {
      this.cron = cron;
      this.window = window;
    }

    /** The cron expression. */
    public String cron() {
      return cron;
    }

    /** The window kind. */
    public WindowKind window() {
      return window;
    }
  }

  /** One generated task. */
  public record PlannedTask(String id, ZoneId zone, Cadence cadence) {
    /**
     * The task as the bench applies it: handler {@code noop}, overlap ALLOW (so that a firing tick
     * creates every row although no worker runs the earlier ones), everything else default.
     */
    public TaskDefinition toDefinition() {
      return TaskDefinition.builder(id)
          .handler("noop")
          .cron(cadence.cron(), zone, cadence.window())
          .overlap(OverlapPolicy.ALLOW)
          .build();
    }
  }

  /** Tasks that fire together wherever they are: one zone and one cadence. */
  public record Group(ZoneId zone, Cadence cadence) {}

  private final List<PlannedTask> tasks;

  private ScheduleMix(List<PlannedTask> tasks) {
    this.tasks = tasks;
  }

  /**
   * {@code n} tasks with ids {@code sched-0000000} upwards, zones drawn independently from {@code
   * weights} (each with probability weight / total) by a random generator seeded with {@code seed}.
   *
   * @throws IllegalArgumentException if {@code n} is below 1 or {@code weights} is empty
   */
  public static ScheduleMix generate(int n, long seed, List<ZoneWeight> weights) {
    if (n < 1) {
      throw new IllegalArgumentException("n (tasks) must be at least 1, was " + n);
    }
    Objects.requireNonNull(weights, "weights");
    if (weights.isEmpty()) {
      throw new IllegalArgumentException("weights must name at least one zone, was empty");
    }
    double[] upTo = new double[weights.size()];
    double total = 0;
    for (int z = 0; z < upTo.length; z++) {
      total += weights.get(z).weight();
      upTo[z] = total;
    }
    SplittableRandom random = new SplittableRandom(seed);
    List<PlannedTask> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int z = Arrays.binarySearch(upTo, random.nextDouble() * total);
      // Not found gives -(insertion point) - 1; the insertion point is the first bound above.
      z = z >= 0 ? z + 1 : -z - 1;
      ZoneId zone = weights.get(Math.min(z, upTo.length - 1)).zone();
      Cadence cadence = i % HOURLY_EVERY == HOURLY_EVERY - 1 ? Cadence.HOURLY : Cadence.DAILY;
      out.add(new PlannedTask(String.format("sched-%07d", i), zone, cadence));
    }
    return new ScheduleMix(Collections.unmodifiableList(out));
  }

  /** The tasks, in id order. */
  public List<PlannedTask> tasks() {
    return tasks;
  }

  /** How many tasks each (zone, cadence) holds, in order of first appearance. */
  public Map<Group, Integer> counts() {
    Map<Group, Integer> out = new LinkedHashMap<>();
    for (PlannedTask t : tasks) {
      out.merge(new Group(t.zone(), t.cadence()), 1, Integer::sum);
    }
    return out;
  }
}
