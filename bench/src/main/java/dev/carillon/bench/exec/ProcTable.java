package dev.carillon.bench.exec;

import dev.carillon.bench.ProcStat;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every process of the machine at one moment, from {@code /proc/PID/stat}: who is whose parent, how
 * many threads each has and the CPU time each (and its waited-for children) used. Read once a
 * sample ({@link #read()}); the rest is arithmetic on what was read.
 */
final class ProcTable {
  private final Map<Long, ProcStat> byPid = new HashMap<>();
  private final Map<Long, List<Long>> children = new HashMap<>();

  ProcTable(Collection<ProcStat> stats) {
    for (ProcStat s : stats) {
      byPid.put(s.pid(), s);
      children.computeIfAbsent(s.ppid(), p -> new ArrayList<>()).add(s.pid());
    }
  }

  /**
   * Every process of this machine now; empty off Linux. A process gone while reading is left out.
   */
  static ProcTable read() {
    List<ProcStat> stats = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path d : dirs) {
        try {
          stats.add(ProcStat.parse(Files.readString(d.resolve("stat")).strip()));
        } catch (IOException e) {
          // Ended between the listing and the read.
        } catch (IllegalArgumentException e) {
          // Not a stat line this parser knows (a kernel older than proc(5)'s 20 fields).
        }
      }
    } catch (IOException e) {
      // Not Linux.
    }
    return new ProcTable(stats);
  }

  /** How many processes run under {@code root} (its children, their children, ...). */
  long descendants(long root) {
    return tree(root).size() - (byPid.containsKey(root) ? 1 : 0);
  }

  /**
   * The CPU ticks of {@code root} and everything under it: each live process's own time plus the
   * time of its children that ended and were waited for. A process that ended was counted in its
   * parent's {@code cutime}/{@code cstime} (PostgreSQL's postmaster waits for its backends), so a
   * difference of two readings is the tree's CPU between them. -1 when {@code root} is gone.
   */
  long treeCpuTicks(long root) {
    if (!byPid.containsKey(root)) {
      return -1;
    }
    long sum = 0;
    for (long pid : tree(root)) {
      sum += byPid.get(pid).ticksWithReapedChildren();
    }
    return sum;
  }

  /** Threads of every process (what counts against {@code kernel.pid_max} and threads-max). */
  long threads() {
    return byPid.values().stream().mapToLong(ProcStat::threads).sum();
  }

  private List<Long> tree(long root) {
    List<Long> out = new ArrayList<>();
    if (byPid.containsKey(root)) {
      out.add(root);
    }
    Deque<Long> todo = new ArrayDeque<>(children.getOrDefault(root, List.of()));
    while (!todo.isEmpty()) {
      long pid = todo.pop();
      if (byPid.containsKey(pid)) {
        out.add(pid);
        todo.addAll(children.getOrDefault(pid, List.of()));
      }
    }
    return out;
  }
}
