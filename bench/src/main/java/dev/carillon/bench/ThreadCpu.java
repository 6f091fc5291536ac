package dev.carillon.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * This JVM's CPU by thread, for saying where a run's CPU went: the bench runs the system under
 * test, its Kafka broker and ZooKeeper in-process, so thread names tell the broker's share from the
 * services'. Threads are grouped by name with their digits taken out ({@code
 * data-plane-kafka-request-handler-3} and {@code -5} are one group). A thread that ended during the
 * span is not counted (the JVM forgets its time), so the groups can add up to less than the
 * process's CPU.
 */
final class ThreadCpu {
  private ThreadCpu() {}

  /** One thread's name and CPU time so far. */
  record Sample(String name, long cpuNanos) {}

  /** Every live thread's CPU time so far, by thread id; empty where the JVM does not measure it. */
  static Map<Long, Sample> snapshot() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Sample> out = new HashMap<>();
    if (!threads.isThreadCpuTimeSupported() || !threads.isThreadCpuTimeEnabled()) {
      return out;
    }
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue; // ended between the two calls
      }
      long cpu = threads.getThreadCpuTime(info.getThreadId());
      if (cpu >= 0) {
        out.put(info.getThreadId(), new Sample(info.getThreadName(), cpu));
      }
    }
    return out;
  }

  /**
   * The CPU each group of threads spent between two snapshots, the largest first (a thread started
   * after {@code before} counts from zero).
   */
  static Map<String, Long> byGroup(Map<Long, Sample> before, Map<Long, Sample> after) {
    Map<String, Long> groups = new HashMap<>();
    after.forEach(
        (id, sample) -> {
          Sample was = before.get(id);
          long spent = sample.cpuNanos() - (was == null ? 0 : was.cpuNanos());
          if (spent > 0) {
            groups.merge(group(sample.name()), spent, Long::sum);
          }
        });
    return groups.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }

  /** A thread's group: its name with every run of digits replaced by {@code #}. */
  static String group(String threadName) {
    return threadName.replaceAll("[0-9]+", "#");
  }

  /**
   * The line that says, per instance, which threads of this JVM the run's CPU went to: the {@code
   * top} largest groups, then the rest together.
   */
  static String line(String database, Map<String, Long> groups, long units, int top) {
    StringBuilder b =
        new StringBuilder("cost: ")
            .append(database)
            .append(" this JVM's CPU per instance by thread, run from the due instant:");
    if (groups.isEmpty()) {
      return b.append(" not measured").toString();
    }
    String sep = " ";
    int shown = 0;
    long rest = 0;
    for (Map.Entry<String, Long> g : groups.entrySet()) {
      if (shown < top) {
        b.append(sep).append(g.getKey()).append(' ').append(micros(g.getValue(), units));
        sep = "; ";
        shown++;
      } else {
        rest += g.getValue();
      }
    }
    if (rest > 0) {
      b.append(sep).append("the other ").append(groups.size() - top).append(" groups ");
      b.append(micros(rest, units));
    }
    return b.toString();
  }

  private static String micros(long nanos, long units) {
    return String.format("%,.1f µs", nanos / 1000.0 / units);
  }
}
