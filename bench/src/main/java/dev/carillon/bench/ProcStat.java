package dev.carillon.bench;

import java.util.List;

/**
 * The fields of one line of Linux's {@code /proc/<pid>/stat} that the bench needs (the cost probe's
 * PostgreSQL CPU, the exec bench's process table). Times are in clock ticks ({@code getconf
 * CLK_TCK}).
 *
 * @param comm the process name (up to 15 characters; may contain spaces and parentheses)
 * @param utime CPU time in user mode
 * @param stime CPU time in kernel mode
 * @param cutime user time of the children this process has waited for (reaped)
 * @param cstime kernel time of the children this process has waited for
 * @param threads its threads ({@code num_threads})
 */
public record ProcStat(
    long pid,
    String comm,
    long ppid,
    long utime,
    long stime,
    long cutime,
    long cstime,
    long threads) {

  /**
   * Parses one {@code stat} line. The name sits between the first {@code (} and the <em>last</em>
   * {@code )}, since a process may name itself {@code a) b (c}; the fields after it are separated
   * by single spaces (see proc(5): state is field 3, ppid 4, utime 14, stime 15, cutime 16, cstime
   * 17, num_threads 20).
   *
   * @throws IllegalArgumentException naming the line when it is not a stat line
   */
  public static ProcStat parse(String line) {
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 1 || close < open) {
      throw new IllegalArgumentException("not a /proc stat line (no \"(name)\"): " + line);
    }
    String[] rest = line.substring(close + 1).trim().split(" +");
    // rest[0] is field 3 (state), so field k is rest[k - 3].
    if (rest.length < 18) {
      throw new IllegalArgumentException(
          "not a /proc stat line (" + (rest.length + 2) + " fields, need 20): " + line);
    }
    try {
      return new ProcStat(
          Long.parseLong(line.substring(0, open).trim()),
          line.substring(open + 1, close),
          Long.parseLong(rest[1]),
          Long.parseLong(rest[11]),
          Long.parseLong(rest[12]),
          Long.parseLong(rest[13]),
          Long.parseLong(rest[14]),
          Long.parseLong(rest[17]));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a /proc stat line (" + e.getMessage() + "): " + line);
    }
  }

  /** Its own CPU time plus that of the children it has reaped. */
  public long ticksWithReapedChildren() {
    return utime + stime + cutime + cstime;
  }

  /**
   * The CPU time of a server process tree: the postmaster's and its living children's, each with
   * the children it reaped. A backend that exited was reaped by the postmaster, and Linux added its
   * time to the postmaster's {@code cutime}/{@code cstime}, so it is not lost; only a child that
   * exited but was not reaped yet is missing (the postmaster reaps at once).
   *
   * @param children the processes whose {@link #ppid()} is {@code postmaster}'s pid; others are
   *     ignored
   */
  public static long treeTicks(ProcStat postmaster, List<ProcStat> children) {
    long sum = postmaster.ticksWithReapedChildren();
    for (ProcStat c : children) {
      if (c.ppid() == postmaster.pid()) {
        sum += c.ticksWithReapedChildren();
      }
    }
    return sum;
  }
}
