package dev.carillon.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The report's "Cost per instance (database and Kafka)" table: one row per system and workload,
 * per-instance figures then the run totals, each the median [min–max] over the repeats.
 */
final class CostTable {
  private CostTable() {}

  /** The table, or nothing when no run measured its cost. */
  static String markdown(List<BenchSystem> systems, List<RunResult> runs) {
    StringBuilder md = new StringBuilder();
    for (String workload : List.of("burst", "steady")) {
      for (BenchSystem s : systems) {
        List<Cost> costs = costs(runs, s.displayName(), workload);
        if (!costs.isEmpty()) {
          row(md, s.displayName(), workload, costs);
        }
      }
    }
    if (md.length() == 0) {
      return "";
    }
    return "### Cost per instance (database and Kafka)\n\n"
        + "Per instance (burst) or planned fire (steady), then the run's totals. Burst: from"
        + " before the instances are created to the last SUCCESS; steady: from "
        + SteadyWorkload.COST_AHEAD.toSeconds()
        + " s before the first fire to the end of the run. WAL and PostgreSQL CPU are"
        + " cluster-wide (one system runs at a time); commits and tuples are the run's database"
        + " (`pg_stat_database`, read "
        + CostProbe.STATS_PUBLISHED.toSeconds()
        + " s after the run); Kafka is every partition's size on the broker. `?`: not read"
        + " (stderr says why); `—`: the system wrote nothing to Kafka. See docs/benchmarks.md.\n\n"
        + "| system | workload | per | WAL (B) | PostgreSQL CPU (µs) | commits | tuples inserted |"
        + " updated | deleted | Kafka (B) | total WAL (B) | total CPU (ms) | total commits |"
        + " total tuples ins / upd / del | total Kafka (B) |\n"
        + "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|\n"
        + md
        + '\n';
  }

  private static void row(StringBuilder md, String system, String workload, List<Cost> costs) {
    boolean noKafka =
        costs.stream().allMatch(c -> c.kafkaBytes().isPresent() && c.kafkaBytes().getAsLong() == 0);
    String per = units(costs) + (workload.equals("burst") ? " instances" : " fires");
    List<String> cells = new ArrayList<>();
    cells.add(system);
    cells.add(workload);
    cells.add(per);
    cells.add(cell(costs, c -> c.perUnit(c.walBytes()), 0));
    cells.add(cell(costs, c -> scaled(c.perUnit(c.pgCpuMillis()), 1000), 0));
    cells.add(cell(costs, c -> c.perUnit(c.commits()), 2));
    cells.add(cell(costs, c -> c.perUnit(c.inserted()), 2));
    cells.add(cell(costs, c -> c.perUnit(c.updated()), 2));
    cells.add(cell(costs, c -> c.perUnit(c.deleted()), 2));
    cells.add(noKafka ? "—" : cell(costs, c -> c.perUnit(c.kafkaBytes()), 0));
    cells.add(cell(costs, c -> total(c.walBytes()), 0));
    cells.add(cell(costs, c -> total(c.pgCpuMillis()), 0));
    cells.add(cell(costs, c -> total(c.commits()), 0));
    cells.add(
        cell(costs, c -> total(c.inserted()), 0)
            + " / "
            + cell(costs, c -> total(c.updated()), 0)
            + " / "
            + cell(costs, c -> total(c.deleted()), 0));
    cells.add(noKafka ? "—" : cell(costs, c -> total(c.kafkaBytes()), 0));
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }

  private static List<Cost> costs(List<RunResult> runs, String system, String workload) {
    List<Cost> found = new ArrayList<>();
    for (RunResult r : runs) {
      if (!r.system().equals(system) || !r.workload().equals(workload)) {
        continue;
      }
      if (r instanceof RunResult.Burst b) {
        found.add(b.cost());
      } else if (r instanceof RunResult.Steady s) {
        found.add(s.cost());
      }
    }
    return found;
  }

  /** The runs' unit count: one number when every run had the same. */
  private static String units(List<Cost> costs) {
    long first = costs.get(0).units();
    boolean same = costs.stream().allMatch(c -> c.units() == first);
    return same
        ? String.format(Locale.ROOT, "%,d", first)
        : Summary.of(costs.stream().map(c -> (double) c.units()).toList()).format(0);
  }

  /**
   * The median [min–max] over the runs that read the figure; {@code ?} when none did, and a note
   * when only some did.
   */
  static String cell(List<Cost> costs, Function<Cost, OptionalDouble> figure, int decimals) {
    List<Double> values = new ArrayList<>();
    for (Cost c : costs) {
      OptionalDouble v = figure.apply(c);
      if (v.isPresent()) {
        values.add(v.getAsDouble());
      }
    }
    if (values.isEmpty()) {
      return "?";
    }
    String s = Summary.of(values).format(decimals);
    return values.size() == costs.size()
        ? s
        : s + " (" + values.size() + " of " + costs.size() + " runs)";
  }

  private static OptionalDouble total(OptionalLong v) {
    return v.isPresent() ? OptionalDouble.of(v.getAsLong()) : OptionalDouble.empty();
  }

  private static OptionalDouble scaled(OptionalDouble v, double factor) {
    return v.isPresent() ? OptionalDouble.of(v.getAsDouble() * factor) : OptionalDouble.empty();
  }
}
