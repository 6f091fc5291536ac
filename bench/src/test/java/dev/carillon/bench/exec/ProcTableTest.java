package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.bench.exec.ProcTable.Stat;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcTableTest {
  @Test
  void a_stat_line_is_read_after_the_command_name_even_when_it_holds_spaces_and_parentheses() {
    String line =
        "4055 (post) gres: (x) y) S 4052 4052 22674 0 -1 4194304 100 0 0 0 "
            + "17 5 230 41 20 0 3 0 3779534 3133440 412 18446744073709551615 0 0 0";

    Stat s = Stat.parse(line).orElseThrow();

    assertThat(s).isEqualTo(new Stat(4055, 4052, 17, 5, 230, 41, 3));
    assertThat(s.cpuTicks()).isEqualTo(17 + 5 + 230 + 41);
  }

  @Test
  void a_real_stat_line_of_this_kernel_parses() {
    String cat =
        "4055 (cat) R 4052 4052 22674 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 3779534 3133440 412"
            + " 18446744073709551615 94324374630400 94324374650281 140736443679376 0 0 0 0 0 0 0 0"
            + " 0 17 0 0 0 0 0 0 94324374666288 94324374667904 94325093392384 140736443685404"
            + " 140736443685424 140736443685424 140736443686891 0\n";

    assertThat(Stat.parse(cat)).contains(new Stat(4055, 4052, 0, 0, 0, 0, 1));
  }

  @Test
  void lines_that_are_not_stat_lines_are_left_out() {
    assertThat(Stat.parse("")).isEmpty();
    assertThat(Stat.parse("12 (short) S 1 2 3")).isEmpty();
    assertThat(Stat.parse("x (cmd) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18")).isEmpty();
  }

  @Test
  void a_trees_cpu_is_every_live_process_own_time_plus_its_waited_for_childrens() {
    ProcTable t =
        new ProcTable(
            List.of(
                stat(1, 0, 10, 1),
                stat(100, 1, 50, 2), // the postmaster; cutime/cstime hold ended backends
                new Stat(101, 100, 7, 3, 0, 0, 1),
                new Stat(102, 100, 4, 1, 0, 0, 1),
                new Stat(103, 102, 2, 2, 0, 0, 1),
                new Stat(200, 1, 99, 99, 0, 0, 40)));

    assertThat(t.treeCpuTicks(100)).isEqualTo((50 + 50 + 25 + 25) + (7 + 3) + (4 + 1) + (2 + 2));
    assertThat(t.descendants(100)).isEqualTo(3);
    assertThat(t.descendants(200)).isZero();
    assertThat(t.descendants(1)).isEqualTo(5);
    assertThat(t.treeCpuTicks(999)).isEqualTo(-1);
    assertThat(t.threads()).isEqualTo(1 + 2 + 1 + 1 + 1 + 40);
  }

  private static Stat stat(long pid, long ppid, long ticks, long threads) {
    return new Stat(pid, ppid, ticks, ticks, ticks / 2, ticks / 2, threads);
  }
}
