package dev.carillon.faults;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** The plain-text summary table the suite prints and keeps in its run directory. */
final class Summary {
  private Summary() {}

  static String render(
      Duration workload,
      long seed,
      FaultLog faults,
      Invariants.Report report,
      List<BadInputs.Outcome> bad,
      List<String> harnessErrors,
      Duration wall,
      String network,
      Map<String, Long> peakRssKb) {
    StringBuilder sb = new StringBuilder();
    line(sb, "=".repeat(78));
    line(
        sb,
        "Carillon fault-injection suite: workload "
            + workload.toSeconds()
            + " s, seed "
            + seed
            + ", wall time "
            + wall.toSeconds()
            + " s");
    line(sb, network);
    line(sb, "-".repeat(78));
    line(sb, "Faults injected");
    for (Map.Entry<FaultLog.Kind, Integer> e : faults.faultCounts().entrySet()) {
      line(sb, String.format("  %-24s %4d", e.getKey(), e.getValue()));
    }
    line(sb, "Windows");
    line(sb, String.format("  %-24s %6d", "expected", report.windowsExpected()));
    line(sb, String.format("  %-24s %6d", "created", report.windowsCreated()));
    line(sb, String.format("  %-24s %6d", "succeeded", report.succeeded()));
    line(sb, String.format("  %-24s %6d", "dead", report.dead()));
    line(sb, String.format("  %-24s %6d", "skipped", report.skipped()));
    line(sb, String.format("  %-24s %6d", "ledger executions", report.ledgerRuns()));
    line(sb, "Effects (AgentContext.once)");
    line(sb, String.format("  %-24s %6d", "windows applied once", report.effects().windows()));
    line(sb, String.format("  %-24s %6d", "calls", report.effects().calls()));
    line(sb, String.format("  %-24s %6d", "repeated, key dropped", report.effects().repeated()));
    line(
        sb,
        "Repeated executions (an attempt lost its lease, the window ran again): "
            + report.reexecutions().size());
    for (Map.Entry<String, Long> e : Invariants.causes(report.reexecutions()).entrySet()) {
      line(sb, String.format("  caused by %-16s %4d", e.getKey(), e.getValue()));
    }
    line(sb, "Invariants");
    for (Invariants.Check c : report.checks()) {
      line(
          sb,
          String.format("  [%s] %s%n         %s", c.ok() ? "PASS" : "FAIL", c.name(), c.detail()));
    }
    long okBad = bad.stream().filter(BadInputs.Outcome::ok).count();
    line(
        sb,
        "Bad input: "
            + bad.size()
            + " tried, "
            + okBad
            + " got a clear error / defined state and left no partial state");
    for (BadInputs.Outcome b : bad) {
      line(
          sb,
          String.format(
              "  [%s] %-44s -> %s%n         %s",
              b.ok() ? "PASS" : "FAIL", b.input(), b.expected(), b.observed()));
    }
    line(sb, "Memory high-water marks (VmHWM, largest of each name's processes)");
    for (Map.Entry<String, Long> e : peakRssKb.entrySet()) {
      line(sb, String.format("  %-24s %6d MiB", e.getKey(), e.getValue() / 1024));
    }
    line(sb, "Fault log");
    for (FaultLog.Entry e : faults.entries()) {
      line(sb, "  " + e.at() + " " + e.kind() + " " + e.target() + " (" + e.detail() + ")");
    }
    if (!harnessErrors.isEmpty()) {
      line(sb, "Harness errors: " + harnessErrors);
    }
    line(sb, "=".repeat(78));
    return sb.toString();
  }

  private static void line(StringBuilder sb, String s) {
    sb.append(s).append('\n');
  }
}
