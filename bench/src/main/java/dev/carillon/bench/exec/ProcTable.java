package dev.carillon.bench.exec;

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
import java.util.Optional;

/**
 * Every process of the machine at one moment, from {@code /proc/PID/stat}: who is whose parent, how
 * many threads each has and the CPU time each (and its waited-for children) used. Read once a
 * sample ({@link #read()}); the rest is arithmetic on what was read.
 */
final class ProcTable {
  /**
   * The fields of one {@code /proc/PID/stat} line the bench uses; times in clock ticks ({@code
   * getconf CLK_TCK}).
   *
   * @param utime user time of the process itself
   * @param stime system time of the process itself
   * @param cutime user time of its children that ended and were waited for
   * @param cstime system time of those children
   * @param threads its threads ({@code num_threads})
   */
  record Stat(long pid, long ppid, long utime, long stime, long cutime, long cstime, long threads) {

    /** CPU time of the process and of its children that ended and were waited for. */
    long cpuTicks() {
      return utime + stime + cutime + cstime;
    }

    /**
     * Parses one stat line. The command name (field 2) is in parentheses and may hold spaces and
     * parentheses itself, so the fields after it are counted from its last ')'.
     */
    static Optional<Stat> parse(String line) {
      int open = line.indexOf('(');
      int close = line.lastIndexOf(')');
      if (open < 1 || close < open) {
        return Optional.empty();
      }
      String[] f = line.substring(close + 1).trim().split("\\s+");
      // f[0] is field 3 (state), so field n is f[n - 3].
      if (f.length < 18) {
        return Optional.empty();
      }
      try {
        return Optional.of(
            new Stat(
                Long.parseLong(line.substring(0, open).trim()),
                Long.parseLong(f[1]),
                Long.parseLong(f[11]),
                Long.parseLong(f[12]),
                Long.parseLong(f[13]),
                Long.parseLong(f[14]),
                Long.parseLong(f[17])));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
  }

  private final Map<Long, Stat> byPid = new HashMap<>();
  private final Map<Long, List<Long>> children = new HashMap<>();

  ProcTable(Collection<Stat> stats) {
    for (Stat s : stats) {
      byPid.put(s.pid(), s);
      children.computeIfAbsent(s.ppid(), p -> new ArrayList<>()).add(s.pid());
    }
  }

  /**
   * Every process of this machine now; empty off Linux. A process gone while reading is left out.
   */
  static ProcTable read() {
    List<Stat> stats = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path d : dirs) {
        try {
          Stat.parse(Files.readString(d.resolve("stat"))).ifPresent(stats::add);
        } catch (IOException e) {
          // Ended between the listing and the read.
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
      sum += byPid.get(pid).cpuTicks();
    }
    return sum;
  }

  /** Threads of every process (what counts against {@code kernel.pid_max} and threads-max). */
  long threads() {
    return byPid.values().stream().mapToLong(Stat::threads).sum();
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
