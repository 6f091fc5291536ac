package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.bench.ProcStat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The process table's arithmetic; the stat lines it reads are {@code ProcStatTest}'s. */
class ProcTableTest {
  @Test
  void a_trees_cpu_is_every_live_process_own_time_plus_its_waited_for_childrens() {
    ProcTable t =
        new ProcTable(
            List.of(
                stat(1, 0, 10, 1),
                stat(100, 1, 50, 2), // the postmaster; cutime/cstime hold ended backends
                stat(101, 100, 7, 3, 1),
                stat(102, 100, 4, 1, 1),
                stat(103, 102, 2, 2, 1),
                stat(200, 1, 99, 99, 40)));

    assertThat(t.treeCpuTicks(100)).isEqualTo((50 + 50 + 25 + 25) + (7 + 3) + (4 + 1) + (2 + 2));
    assertThat(t.descendants(100)).isEqualTo(3);
    assertThat(t.descendants(200)).isZero();
    assertThat(t.descendants(1)).isEqualTo(5);
    assertThat(t.treeCpuTicks(999)).isEqualTo(-1);
    assertThat(t.threads()).isEqualTo(1 + 2 + 1 + 1 + 1 + 40);
  }

  @Test
  void this_machine_has_this_jvm_in_its_table() {
    ProcTable now = ProcTable.read();

    assertThat(now.treeCpuTicks(ProcessHandle.current().pid())).isPositive();
    assertThat(now.threads()).isGreaterThan(1);
  }

  /** A process with {@code ticks} user and system time and half of it reaped from children. */
  private static ProcStat stat(long pid, long ppid, long ticks, long threads) {
    return new ProcStat(pid, "p", ppid, ticks, ticks, ticks / 2, ticks / 2, threads);
  }

  private static ProcStat stat(long pid, long ppid, long utime, long stime, long threads) {
    return new ProcStat(pid, "p", ppid, utime, stime, 0, 0, threads);
  }
}
