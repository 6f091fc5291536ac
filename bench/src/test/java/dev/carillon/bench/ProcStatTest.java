package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProcStatTest {
  // A postmaster's line as Linux writes it (fields 1-24 of proc(5); utime 150, stime 75, cutime 20,
  // cstime 10).
  private static final String POSTMASTER =
      "29231 (postgres) S 1 29231 29231 0 -1 4194560 9123 88123 3 7 150 75 20 10 20 0 1 0 1093481"
          + " 223150080 4380";

  @Test
  void a_stat_line_gives_pid_name_parent_the_four_cpu_times_and_the_threads() {
    ProcStat s = ProcStat.parse(POSTMASTER);

    assertThat(s).isEqualTo(new ProcStat(29231, "postgres", 1, 150, 75, 20, 10, 1));
    assertThat(s.ticksWithReapedChildren()).isEqualTo(255);
  }

  @Test
  void a_name_with_spaces_and_parentheses_is_read_up_to_the_last_closing_parenthesis() {
    ProcStat s =
        ProcStat.parse("4242 (a) b (c) d) R 29231 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 5 6 7");

    assertThat(s.comm()).isEqualTo("a) b (c) d");
    assertThat(s.ppid()).isEqualTo(29231);
    assertThat(s.utime()).isEqualTo(7);
    assertThat(s.stime()).isEqualTo(3);
  }

  @Test
  void a_line_that_is_not_a_stat_line_is_rejected_with_the_line_in_the_message() {
    assertThatThrownBy(() -> ProcStat.parse("no name here"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no name here");
    assertThatThrownBy(() -> ProcStat.parse("12 (short) S 1 2 3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("need 20")
        .hasMessageContaining("12 (short) S 1 2 3");
    assertThatThrownBy(
            () -> ProcStat.parse("12 (x) S 1 1 1 0 -1 0 0 0 0 0 lots 3 0 0 20 0 1 0 5 6 7"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lots");
  }

  @Test
  void a_real_stat_line_of_this_kernel_with_every_field_parses() {
    String cat =
        "4055 (cat) R 4052 4052 22674 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 3779534 3133440 412"
            + " 18446744073709551615 94324374630400 94324374650281 140736443679376 0 0 0 0 0 0 0 0"
            + " 0 17 0 0 0 0 0 0 94324374666288 94324374667904 94325093392384 140736443685404"
            + " 140736443685424 140736443685424 140736443686891 0\n";

    assertThat(ProcStat.parse(cat)).isEqualTo(new ProcStat(4055, "cat", 4052, 0, 0, 0, 0, 1));
  }

  @Test
  void this_jvms_own_stat_line_parses_to_its_pid_and_parent() throws Exception {
    ProcStat self = ProcStat.parse(Files.readString(Path.of("/proc/self/stat")).strip());

    assertThat(self.pid()).isEqualTo(ProcessHandle.current().pid());
    assertThat(self.ppid())
        .isEqualTo(ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L));
    assertThat(self.utime() + self.stime()).as("a running JVM has used CPU").isPositive();
    assertThat(self.threads()).as("a JVM runs more than one thread").isGreaterThan(1);
  }

  @Test
  void the_tree_counts_the_postmaster_its_reaped_children_and_its_living_children_only() {
    ProcStat postmaster = new ProcStat(100, "postgres", 1, 10, 5, 40, 20, 1);
    ProcStat backend = new ProcStat(101, "postgres", 100, 300, 100, 0, 0, 1);
    ProcStat walWriter = new ProcStat(102, "postgres", 100, 2, 1, 0, 0, 1);
    ProcStat stranger = new ProcStat(900, "postgres", 1, 5000, 5000, 0, 0, 1);

    assertThat(ProcStat.treeTicks(postmaster, List.of(backend, walWriter, stranger)))
        .isEqualTo(10 + 5 + 40 + 20 + 300 + 100 + 2 + 1);
  }

  @Test
  void a_backend_that_exits_between_two_readings_keeps_its_time_in_the_postmasters_reaped_time() {
    ProcStat backendBefore = new ProcStat(101, "postgres", 100, 30, 10, 0, 0, 1);
    long before =
        ProcStat.treeTicks(new ProcStat(100, "postgres", 1, 1, 1, 0, 0, 1), List.of(backendBefore));
    // It ran 5 more ticks, exited and was reaped: its 45 ticks now sit in cutime/cstime.
    long after = ProcStat.treeTicks(new ProcStat(100, "postgres", 1, 1, 1, 33, 12, 1), List.of());

    assertThat(after - before).isEqualTo(5);
  }
}
