package dev.carillon.bench;

import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * What one run cost PostgreSQL and Kafka: totals over the run's span and per instance (or fire). An
 * empty figure could not be read (the report shows {@code ?}); {@link CostProbe} said why.
 *
 * @param units the instances (burst) or planned fires (steady) the totals are divided by
 * @param walBytes WAL written, cluster-wide
 * @param pgCpuMillis CPU time (user + system) of every PostgreSQL server process
 * @param commits transactions committed in the run's database
 * @param inserted tuples inserted in the run's database (all its tables, catalogs included)
 * @param updated tuples updated there
 * @param deleted tuples deleted there
 * @param kafkaBytes bytes appended to the broker's partitions, all topics
 */
public record Cost(
    long units,
    OptionalLong walBytes,
    OptionalLong pgCpuMillis,
    OptionalLong commits,
    OptionalLong inserted,
    OptionalLong updated,
    OptionalLong deleted,
    OptionalLong kafkaBytes) {

  public Cost {
    if (units < 1) {
      throw new IllegalArgumentException("units must be at least 1, was " + units);
    }
    Objects.requireNonNull(walBytes, "walBytes");
    Objects.requireNonNull(pgCpuMillis, "pgCpuMillis");
    Objects.requireNonNull(commits, "commits");
    Objects.requireNonNull(inserted, "inserted");
    Objects.requireNonNull(updated, "updated");
    Objects.requireNonNull(deleted, "deleted");
    Objects.requireNonNull(kafkaBytes, "kafkaBytes");
  }

  /** {@code pg_stat_database}'s cumulative counters for one database. */
  public record DbCounters(long commits, long inserted, long updated, long deleted) {}

  /**
   * The cumulative figures at one instant; each is empty when it could not be read.
   *
   * @param walPosition the WAL insert position in bytes from {@code 0/0}
   * @param cpuTicks the server processes' CPU time in clock ticks ({@link ProcStat#treeTicks})
   * @param kafkaBytes the summed size of every partition on the broker
   */
  public record Snapshot(
      OptionalLong walPosition,
      OptionalLong cpuTicks,
      Optional<DbCounters> db,
      OptionalLong kafkaBytes) {
    public static final Snapshot NOTHING =
        new Snapshot(
            OptionalLong.empty(), OptionalLong.empty(), Optional.empty(), OptionalLong.empty());
  }

  /** A run whose cost was not measured (the warm-up). */
  public static Cost unmeasured(long units) {
    return between(Snapshot.NOTHING, Snapshot.NOTHING, units, 100);
  }

  /**
   * The cost between two snapshots of one run. A figure is empty when either side lacks it or it
   * went backwards (a counter reset, or a compacted Kafka log shrinking more than was written).
   *
   * @param ticksPerSecond the kernel's clock ticks per second ({@code CLK_TCK})
   */
  public static Cost between(Snapshot before, Snapshot after, long units, long ticksPerSecond) {
    if (ticksPerSecond < 1) {
      throw new IllegalArgumentException("ticksPerSecond must be positive, was " + ticksPerSecond);
    }
    OptionalLong ticks = delta(before.cpuTicks(), after.cpuTicks());
    return new Cost(
        units,
        delta(before.walPosition(), after.walPosition()),
        ticks.isPresent()
            ? OptionalLong.of(ticks.getAsLong() * 1000 / ticksPerSecond)
            : OptionalLong.empty(),
        db(before, after, DbCounters::commits),
        db(before, after, DbCounters::inserted),
        db(before, after, DbCounters::updated),
        db(before, after, DbCounters::deleted),
        delta(before.kafkaBytes(), after.kafkaBytes()));
  }

  /** {@code total / units}, empty where the total is. */
  public OptionalDouble perUnit(OptionalLong total) {
    return total.isPresent()
        ? OptionalDouble.of((double) total.getAsLong() / units)
        : OptionalDouble.empty();
  }

  /** Tuples inserted, updated and deleted together, empty unless all three were read. */
  public OptionalLong tuples() {
    return inserted.isPresent() && updated.isPresent() && deleted.isPresent()
        ? OptionalLong.of(inserted.getAsLong() + updated.getAsLong() + deleted.getAsLong())
        : OptionalLong.empty();
  }

  private static OptionalLong db(
      Snapshot before, Snapshot after, java.util.function.ToLongFunction<DbCounters> f) {
    if (before.db().isEmpty() || after.db().isEmpty()) {
      return OptionalLong.empty();
    }
    return delta(
        OptionalLong.of(f.applyAsLong(before.db().get())),
        OptionalLong.of(f.applyAsLong(after.db().get())));
  }

  /** {@code after - before}, empty when either is or the figure went backwards. */
  static OptionalLong delta(OptionalLong before, OptionalLong after) {
    if (before.isEmpty() || after.isEmpty() || after.getAsLong() < before.getAsLong()) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(after.getAsLong() - before.getAsLong());
  }
}
