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
      Map<String, Long> peakRssKb,
      List<LongOutages.KafkaOutage> kafkaOutages) {
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
    if (!kafkaOutages.isEmpty()) {
      line(sb, "Long Kafka outages (the triggers' dispatch metrics, sampled)");
      for (LongOutages.KafkaOutage k : kafkaOutages) {
        line(sb, "  " + kafkaOutage(k));
      }
    }
    line(sb, "Markdown for docs/reliability.md, \"## Full run (30 minutes)\":");
    sb.append(markdown(workload, seed, faults, report, wall, peakRssKb, kafkaOutages));
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

  /**
   * The run as Markdown tables, ready to paste into docs/reliability.md: faults with their counts,
   * the windows, repeats by cause, every invariant with its verdict and counts, the long Kafka
   * outages, and the memory high-water marks.
   */
  static String markdown(
      Duration workload,
      long seed,
      FaultLog faults,
      Invariants.Report report,
      Duration wall,
      Map<String, Long> peakRssKb,
      List<LongOutages.KafkaOutage> kafkaOutages) {
    StringBuilder sb = new StringBuilder();
    line(
        sb,
        "Workload "
            + workload.toSeconds()
            + " s, seed "
            + seed
            + ", wall time "
            + wall.toSeconds()
            + " s.");
    line(sb, "");
    line(sb, "| Fault | Injected |");
    line(sb, "|---|---:|");
    for (Map.Entry<FaultLog.Kind, Integer> e : faults.faultCounts().entrySet()) {
      line(sb, "| `" + e.getKey() + "` | " + e.getValue() + " |");
    }
    line(sb, "");
    line(sb, "| Windows | Count |");
    line(sb, "|---|---:|");
    line(sb, "| expected | " + report.windowsExpected() + " |");
    line(sb, "| created | " + report.windowsCreated() + " |");
    line(
        sb,
        "| run (finished: succeeded + dead + skipped) | "
            + (report.succeeded() + report.dead() + report.skipped())
            + " |");
    line(
        sb,
        "| succeeded / dead / skipped | "
            + report.succeeded()
            + " / "
            + report.dead()
            + " / "
            + report.skipped()
            + " |");
    line(sb, "| executions in the ledger | " + report.ledgerRuns() + " |");
    line(sb, "| repeated executions | " + report.reexecutions().size() + " |");
    for (Map.Entry<String, Long> e : Invariants.causes(report.reexecutions()).entrySet()) {
      line(sb, "| &nbsp; repeated, caused by `" + e.getKey() + "` | " + e.getValue() + " |");
    }
    line(
        sb,
        "| effect calls / repeated (key dropped) | "
            + report.effects().calls()
            + " / "
            + report.effects().repeated()
            + " |");
    line(sb, "");
    line(sb, "| Invariant | Verdict | Counts |");
    line(sb, "|---|---|---|");
    for (Invariants.Check c : report.checks()) {
      line(
          sb,
          "| "
              + cell(c.name())
              + " | "
              + (c.ok() ? "PASS" : "**FAIL**")
              + " | "
              + cell(c.detail())
              + " |");
    }
    if (!kafkaOutages.isEmpty()) {
      line(sb, "");
      line(
          sb,
          "| Kafka outage | Down | Fires/s | Backlog peak (bound) | Deferred | Oldest undispatched age, peak | Fell back after | Trigger VmHWM |");
      line(sb, "|---|---:|---:|---:|---:|---:|---:|---:|");
      for (LongOutages.KafkaOutage k : kafkaOutages) {
        line(
            sb,
            String.format(
                "| block %d | %d s | %.1f | %.0f (%d) | %.0f | %.0f s | %s | %d MiB |",
                k.block(),
                k.down().toSeconds(),
                k.firesPerSecond(),
                k.backlogPeak(),
                k.backlogBound(),
                k.deferred(),
                k.oldestAgePeak(),
                k.fellBackAfter() == null ? "never" : k.fellBackAfter().toSeconds() + " s",
                k.triggerHwmKb() / 1024));
      }
    }
    line(sb, "");
    line(sb, "| Process | VmHWM |");
    line(sb, "|---|---:|");
    for (Map.Entry<String, Long> e : peakRssKb.entrySet()) {
      line(sb, "| " + e.getKey() + " | " + e.getValue() / 1024 + " MiB |");
    }
    return sb.toString();
  }

  private static String kafkaOutage(LongOutages.KafkaOutage k) {
    return String.format(
        "block %d: down %d s, %.1f fires/s, backlog peak %.0f (bound %d), %.0f deferred, oldest"
            + " age peak %.0f s, fell back %s, trigger VmHWM %d MiB, %d samples",
        k.block(),
        k.down().toSeconds(),
        k.firesPerSecond(),
        k.backlogPeak(),
        k.backlogBound(),
        k.deferred(),
        k.oldestAgePeak(),
        k.fellBackAfter() == null ? "NEVER" : k.fellBackAfter().toSeconds() + " s after",
        k.triggerHwmKb() / 1024,
        k.samples());
  }

  /** A table cell: pipes escaped, on one line. */
  private static String cell(String s) {
    return s.replace("|", "\\|").replace("\n", " ");
  }

  private static void line(StringBuilder sb, String s) {
    sb.append(s).append('\n');
  }
}
