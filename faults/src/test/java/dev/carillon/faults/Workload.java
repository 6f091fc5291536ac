package dev.carillon.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The suite's 50 tasks, all with handler {@code ledger}, firing every 2 or 3 seconds (one every
 * second per zone offset), each of a kind that fixes its expected end.
 */
final class Workload {
  /** What a task does and how its instances must end. */
  enum Kind {
    /** Short runs, retried on any failure: SUCCESS. */
    OK(20),
    /** Fails attempt 1, then succeeds; IMMEDIATE x2: SUCCESS on attempt 2. */
    RECOVERS(8),
    /** Always fails; IMMEDIATE x2: DEAD after 3 attempts. */
    EXHAUSTS(5),
    /** Fails with NonRetryableException despite a retry policy: DEAD after one attempt. */
    NON_RETRYABLE(5),
    /** Fails attempt 1 with no retry policy (the default): DEAD, no retry. */
    NO_POLICY(4),
    /** Runs longer than its interval, overlap ALLOW: concurrent runs, SUCCESS. */
    OVERLAP_ALLOW(4),
    /** Runs longer than its interval, overlap SKIP: SUCCESS or SKIPPED. */
    OVERLAP_SKIP(4),
    /**
     * The full run's burst around each long Kafka outage (see {@link LongOutages}): short runs,
     * retried on any failure, SUCCESS. None in the regular workload.
     */
    BURST(0);

    final int count;

    Kind(int count) {
      this.count = count;
    }
  }

  /** One task of the workload. */
  record TaskSpec(
      String id,
      Kind kind,
      String cron,
      String zone,
      long durationMs,
      int failFirst,
      boolean nonRetryable,
      String retryYaml,
      int maxRetries,
      String overlap) {}

  /** Lease length of every task: a frozen worker loses its leases after this. */
  static final Duration TASK_TIMEOUT = Duration.ofSeconds(10);

  private static final String[] ZONES = {
    "UTC", "Europe/Berlin", "Asia/Kolkata", "America/St_Johns"
  };

  private Workload() {}

  static List<TaskSpec> tasks(Random random) {
    List<TaskSpec> out = new ArrayList<>();
    int n = 0;
    for (Kind k : Kind.values()) {
      for (int i = 0; i < k.count; i++, n++) {
        int interval = 2 + (n % 2);
        String cron = (n % interval) + "/" + interval + " * * * * ?";
        String zone = ZONES[n % ZONES.length];
        String id = "f-" + k.name().toLowerCase().replace('_', '-') + "-" + i;
        String immediate3 = "{ policy: IMMEDIATE, maxRetries: 3 }";
        String immediate2 = "{ policy: IMMEDIATE, maxRetries: 2 }";
        out.add(
            switch (k) {
              case OK ->
                  new TaskSpec(
                      id,
                      k,
                      cron,
                      zone,
                      100 + random.nextInt(700),
                      0,
                      false,
                      immediate3,
                      3,
                      "ALLOW");
              case RECOVERS ->
                  new TaskSpec(
                      id,
                      k,
                      cron,
                      zone,
                      100 + random.nextInt(300),
                      1,
                      false,
                      immediate2,
                      2,
                      "ALLOW");
              case EXHAUSTS ->
                  new TaskSpec(id, k, cron, zone, 100, 99, false, immediate2, 2, "ALLOW");
              case NON_RETRYABLE ->
                  new TaskSpec(id, k, cron, zone, 100, 99, true, immediate3, 3, "ALLOW");
              case NO_POLICY -> new TaskSpec(id, k, cron, zone, 100, 1, false, null, 0, "ALLOW");
              case OVERLAP_ALLOW ->
                  new TaskSpec(
                      id, k, "0/2 * * * * ?", zone, 3000, 0, false, immediate3, 3, "ALLOW");
              case OVERLAP_SKIP ->
                  new TaskSpec(id, k, "1/2 * * * * ?", zone, 3000, 0, false, immediate3, 3, "SKIP");
              case BURST -> throw new IllegalStateException("burst tasks come from LongOutages");
            });
      }
    }
    return out;
  }

  /** A burst task: fires every second of its cron, 20 ms runs, retried like {@link Kind#OK}. */
  static TaskSpec burst(String id, String cron) {
    return new TaskSpec(
        id,
        Kind.BURST,
        cron,
        "UTC",
        20,
        0,
        false,
        "{ policy: IMMEDIATE, maxRetries: 3 }",
        3,
        "ALLOW");
  }

  /** The task file {@code schedctl apply} reads. */
  static String yaml(List<TaskSpec> tasks) {
    StringBuilder sb = new StringBuilder("tasks:\n");
    for (TaskSpec t : tasks) {
      sb.append("  - id: ").append(t.id()).append('\n');
      sb.append("    handler: ledger\n");
      sb.append("    schedule: { cron: \"")
          .append(t.cron())
          .append("\", zone: ")
          .append(t.zone())
          .append(", window: EVERY_FIRE }\n");
      sb.append("    overlap: ").append(t.overlap()).append('\n');
      // Catch-up covers any leader gap of the run, so every window must get its row.
      sb.append("    catchup: 10m\n");
      sb.append("    timeout: ").append(TASK_TIMEOUT.toSeconds()).append("s\n");
      if (t.retryYaml() != null) {
        sb.append("    retry: ").append(t.retryYaml()).append('\n');
      }
      sb.append("    params: { durationMs: ")
          .append(t.durationMs())
          .append(", failFirst: ")
          .append(t.failFirst())
          .append(", nonRetryable: ")
          .append(t.nonRetryable())
          .append(" }\n");
    }
    return sb.toString();
  }
}
