package dev.carillon.bench;

import dev.carillon.model.Durations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * Renders {@link BenchRunner.Results} as Markdown: machine, versions, tables, settings, command.
 */
public final class Report {
  private Report() {}

  /**
   * @param postgres the server's version and the settings it ran with, as read from it
   */
  public static String markdown(BenchRunner.Results r, String postgres) {
    BenchOptions o = r.options();
    StringBuilder md = new StringBuilder();
    md.append("## Results ").append(r.started()).append("\n\n");
    md.append("Reproduce with:\n\n```\nbench/run.sh ")
        .append(String.join(" ", o.toArgs()))
        .append("\n```\n\n");
    md.append("Each cell is the median of the measured runs with [min–max]; duplicates and misses")
        .append(" list every run. Took ")
        .append(Durations.format(java.time.Duration.ofSeconds(r.took().toSeconds())))
        .append(".\n\n");

    md.append("### Machine\n\n| | |\n|---|---|\n");
    row(md, "CPUs (nproc)", Integer.toString(r.machine().cpus()));
    row(md, "CPU model", r.machine().cpuModel());
    row(md, "memory", r.machine().memory());
    row(md, "Java", r.machine().java());
    row(md, "OS", r.machine().os());
    row(md, "load average at start / end", r.machine().loadAtStart() + " / " + r.loadAtEnd());
    row(md, "PostgreSQL", postgres);
    for (BenchSystem s : r.systems()) {
      row(md, s.displayName(), s.version());
    }
    md.append('\n');

    List<RunResult.Burst> bursts = of(r.runs(), RunResult.Burst.class);
    if (!bursts.isEmpty() || failed(r.runs(), "burst")) {
      md.append("### Burst: ")
          .append(String.format(Locale.ROOT, "%,d", o.n()))
          .append(" instances due at once, noop handler, ")
          .append(o.threads())
          .append(" worker threads\n\n");
      md.append("| system | end-to-end (instances/s) | first due → last SUCCESS (s) |")
          .append(" stages (instances/s) | JIT compiling (ms) | duplicates | misses |\n");
      md.append("|---|---:|---:|---|---:|---|---|\n");
      for (BenchSystem s : r.systems()) {
        List<RunResult.Burst> mine = bySystem(bursts, s.displayName());
        if (mine.isEmpty()) {
          continue;
        }
        md.append("| ")
            .append(s.displayName())
            .append(" | ")
            .append(summary(mine, RunResult.Burst::perSecond).format(0))
            .append(" | ")
            .append(
                summary(
                        mine,
                        b -> b.endToEnd() == null ? Double.NaN : b.endToEnd().toMillis() / 1000.0)
                    .format(2))
            .append(" | ")
            .append(stages(mine))
            .append(" | ")
            .append(summary(mine, b -> b.compilation().toMillis()).format(0))
            .append(" | ")
            .append(list(mine, b -> b.check().duplicates() + b.check().unexpected()))
            .append(" | ")
            .append(list(mine, b -> b.check().misses()))
            .append(" |\n");
      }
      md.append('\n');
    }

    List<RunResult.Steady> steadies = of(r.runs(), RunResult.Steady.class);
    if (!steadies.isEmpty() || failed(r.runs(), "steady")) {
      md.append("### Steady: ")
          .append(o.rate())
          .append(" fires/s for ")
          .append(Durations.format(o.duration()))
          .append(" over ")
          .append(String.format(Locale.ROOT, "%,d", o.steadyTasks()))
          .append(" tasks (each every ")
          .append(Durations.format(o.period()))
          .append("), ")
          .append(o.threads())
          .append(" worker threads\n\n");
      md.append(
          "| system | lag p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | duplicates | misses |\n");
      md.append("|---|---:|---:|---:|---:|---|---|\n");
      for (BenchSystem s : r.systems()) {
        List<RunResult.Steady> mine = bySystem(steadies, s.displayName());
        if (mine.isEmpty()) {
          continue;
        }
        md.append("| ")
            .append(s.displayName())
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().p50()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().p95()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().p99()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().max()).format(1))
            .append(" | ")
            .append(list(mine, x -> x.check().duplicates() + x.check().unexpected()))
            .append(" | ")
            .append(list(mine, x -> x.check().misses()))
            .append(" |\n");
      }
      md.append('\n');
    }

    List<RunResult.Api> apis = of(r.runs(), RunResult.Api.class);
    if (!apis.isEmpty() || failed(r.runs(), "api")) {
      md.append("### API under load: ")
          .append(o.apiClients())
          .append(" clients listing instances (`GET /api/v1/instances?limit=")
          .append(ApiLoad.PAGE)
          .append("`, back to back, one token and connection each) during the steady ")
          .append(o.rate())
          .append(" fires/s for ")
          .append(Durations.format(o.duration()))
          .append("\n\n");
      md.append("Fire lag beside the steady run without clients (the Steady table")
          .append(steadies.isEmpty() ? "; not run here: add `steady` to `--workload`" : "")
          .append(").\n\n");
      md.append("| system | API p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | requests/s |")
          .append(" not 200 | fire lag p50 (ms) | p99 (ms) | max (ms) |")
          .append(" without clients: lag p50 / p99 (ms) | duplicates | misses |\n");
      md.append("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|---|\n");
      for (BenchSystem s : r.systems()) {
        List<RunResult.Api> mine = bySystem(apis, s.displayName());
        if (mine.isEmpty()) {
          continue;
        }
        List<RunResult.Steady> without = bySystem(steadies, s.displayName());
        md.append("| ")
            .append(s.displayName())
            .append(" | ")
            .append(summary(mine, x -> x.api().p50()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.api().p95()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.api().p99()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.api().max()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.api().perSecond()).format(0))
            .append(" | ")
            .append(list(mine, x -> x.api().failed()))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().p50()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().p99()).format(1))
            .append(" | ")
            .append(summary(mine, x -> x.check().lag().max()).format(1))
            .append(" | ")
            .append(
                without.isEmpty()
                    ? "not run"
                    : summary(without, x -> x.check().lag().p50()).format(1)
                        + " / "
                        + summary(without, x -> x.check().lag().p99()).format(1))
            .append(" | ")
            .append(list(mine, x -> x.check().duplicates() + x.check().unexpected()))
            .append(" | ")
            .append(list(mine, x -> x.check().misses()))
            .append(" |\n");
      }
      md.append('\n');
    }

    md.append(CostTable.markdown(r.systems(), r.runs()));

    List<RunResult.Failed> failures = of(r.runs(), RunResult.Failed.class);
    if (!failures.isEmpty()) {
      md.append("### Failed runs\n\n");
      for (RunResult.Failed f : failures) {
        md.append("- ")
            .append(f.system())
            .append(' ')
            .append(f.workload())
            .append(": ")
            .append(f.error())
            .append('\n');
      }
      md.append('\n');
    }

    md.append("### Settings\n\n");
    md.append("- every system: HikariCP pool of ")
        .append(o.poolSize())
        .append(" (threads + 2, fixed size), a fresh database per run, the same PostgreSQL;")
        .append(" repeats interleaved across systems")
        .append(
            o.warmup()
                ? "; unmeasured warm-up first: per system, bursts of "
                    + String.format(Locale.ROOT, "%,d", o.warmupSize())
                    + " until one spent at"
                    + " most "
                    + Math.round(BenchRunner.SETTLED_COMPILATION_SHARE * 100)
                    + " % of its time in JIT compilation, "
                    + BenchRunner.WARMUP_BURSTS
                    + " ran or "
                    + BenchRunner.WARMUP_BUDGET.toSeconds()
                    + " s passed (at least one)\n"
                : "\n");
    for (BenchSystem s : r.systems()) {
      md.append("- **").append(s.displayName()).append("**\n");
      for (String line : s.settings(o)) {
        md.append("  - ").append(line).append('\n');
      }
    }
    return md.toString();
  }

  private static void row(StringBuilder md, String k, String v) {
    md.append("| ").append(k).append(" | ").append(v).append(" |\n");
  }

  private static <T> List<T> of(List<RunResult> runs, Class<T> type) {
    return runs.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static boolean failed(List<RunResult> runs, String workload) {
    return runs.stream()
        .anyMatch(x -> x instanceof RunResult.Failed && x.workload().equals(workload));
  }

  private static <T extends RunResult> List<T> bySystem(List<T> runs, String system) {
    return runs.stream().filter(x -> x.system().equals(system)).toList();
  }

  private static <T> Summary summary(List<T> runs, ToDoubleFunction<T> f) {
    return Summary.of(runs.stream().map(x -> f.applyAsDouble(x)).toList());
  }

  private static <T> String list(List<T> runs, ToLongFunction<T> f) {
    return runs.stream()
        .map(x -> Long.toString(f.applyAsLong(x)))
        .collect(Collectors.joining(", "));
  }

  private static String stages(List<RunResult.Burst> runs) {
    Set<String> names = new LinkedHashSet<>();
    runs.forEach(b -> b.stages().forEach(s -> names.add(s.name())));
    if (names.isEmpty()) {
      return "not exposed";
    }
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    for (String n : names) {
      List<Double> v = new ArrayList<>();
      for (RunResult.Burst b : runs) {
        b.stages().stream().filter(s -> s.name().equals(n)).forEach(s -> v.add(s.perSecond()));
      }
      rates.put(n, v);
    }
    return rates.entrySet().stream()
        .map(e -> e.getKey() + " " + Summary.of(e.getValue()).format(0))
        .collect(Collectors.joining("; "));
  }
}
