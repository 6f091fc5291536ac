package dev.carillon.bench.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.bench.exec.MachineLimits.Check;
import dev.carillon.bench.exec.MachineLimits.Demand;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class MachineLimitsTest {
  private static final String LIMITS =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
          + "Max cpu time              unlimited            unlimited            seconds   \n"
          + "Max processes             96364                96364                processes \n"
          + "Max open files            1024                 20000                files     \n"
          + "Max locked memory         8388608              unlimited            bytes     \n";

  /** This machine's limits (2 cores, 24 GiB) with 600 threads running. */
  private static final MachineLimits HERE =
      new MachineLimits(32_768, 192_729, 96_364, true, 20_000, 65_530, 21_000_000, 600);

  @Test
  void proc_files_are_read_for_the_values_the_checks_use() {
    assertThat(MachineLimits.limit(LIMITS, "Max processes", false)).isEqualTo(96_364);
    assertThat(MachineLimits.limit(LIMITS, "Max open files", false)).isEqualTo(1024);
    assertThat(MachineLimits.limit(LIMITS, "Max open files", true)).isEqualTo(20_000);
    assertThat(MachineLimits.limit(LIMITS, "Max locked memory", true)).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> MachineLimits.limit(LIMITS, "Max stack size", true))
        .hasMessage("no 'Max stack size' line in /proc/self/limits");
    assertThat(MachineLimits.memAvailableKb("MemTotal: 24683652 kB\nMemAvailable:   21266944 kB\n"))
        .isEqualTo(21_266_944);
    assertThat(MachineLimits.realUid("Name:\tjava\nUid:\t1000\t0\t0\t0\n")).isEqualTo(1000);
    assertThat(MachineLimits.field("VmRSS:\t  438120 kB\nThreads:\t872\n", "VmRSS"))
        .isEqualTo(OptionalLong.of(438_120));
    assertThat(MachineLimits.field("VmRSS:\t  438120 kB\nThreads:\t872\n", "Threads"))
        .isEqualTo(OptionalLong.of(872));
    assertThat(MachineLimits.field("Threads:\t872\n", "VmHWM")).isEmpty();
    assertThat(MachineLimits.number("32768\n")).isEqualTo(32_768);
    assertThat(MachineLimits.heapKb("512m")).isEqualTo(512 * 1024);
    assertThat(MachineLimits.heapKb("2G")).isEqualTo(2 * 1024 * 1024);
    assertThat(MachineLimits.heapKb("4096k")).isEqualTo(4096);
  }

  @Test
  void a_run_costs_its_sleep_process_and_four_platform_threads_or_three_with_virtual_ones() {
    Demand platform = new Demand(5000, 5, 1000, false, 512 * 1024);
    Demand virtual = new Demand(5000, 5, 1000, true, 512 * 1024);

    assertThat(platform.newTasks()).isEqualTo(5000 * 5 + 5 * 100);
    assertThat(virtual.newTasks()).isEqualTo(5000 * 4 + 5 * 100);
    assertThat(platform.threadsPerWorker()).isEqualTo(1000 * 4 + 100);
  }

  @Test
  void five_thousand_runs_on_five_workers_fit_this_machine_with_platform_threads() {
    List<Check> checks = HERE.checks(new Demand(5000, 5, 1000, false, 512 * 1024));

    assertThat(checks).allMatch(Check::holds);
    assertThat(checks.get(0).need()).isEqualTo(600 + 25_500);
    assertThat(checks.get(0).limit()).isEqualTo(32_768);
  }

  @Test
  void the_process_id_space_bounds_ten_thousand_runs_and_says_so() {
    List<Check> checks = HERE.checks(new Demand(10_000, 10, 1000, false, 512 * 1024));

    List<Check> failed = checks.stream().filter(c -> !c.holds()).toList();
    assertThat(failed)
        .extracting(Check::name)
        .containsExactly("kernel.pid_max (processes + threads on the machine)");
    assertThat(failed.get(0).describe())
        .isEqualTo(
            "kernel.pid_max (processes + threads on the machine): limit 32768, needs about 51600"
                + " - TOO LOW");
    // With virtual run threads a run costs one thread less, which is still too many.
    assertThat(HERE.checks(new Demand(10_000, 10, 1000, true, 512 * 1024)).get(0).holds())
        .isFalse();
    assertThat(HERE.checks(new Demand(7_500, 8, 938, true, 512 * 1024)).get(0).holds()).isTrue();
  }

  @Test
  void rlimit_nproc_is_checked_only_for_users_the_kernel_applies_it_to() {
    MachineLimits user =
        new MachineLimits(4_194_304, 192_729, 4096, false, 20_000, 65_530, 21_000_000, 600);
    Demand d = new Demand(1000, 1, 1000, false, 512 * 1024);

    Check nproc = user.checks(d).get(2);
    assertThat(nproc.holds()).isFalse();
    assertThat(nproc.describe()).contains("limit 4096").endsWith("TOO LOW");
    Check asRoot = HERE.checks(d).get(2);
    assertThat(asRoot.holds()).isTrue();
    assertThat(asRoot.describe()).endsWith("(not enforced for root)");
  }

  @Test
  void open_files_maps_and_memory_are_checked_per_worker_and_in_total() {
    MachineLimits small =
        new MachineLimits(4_194_304, 4_000_000, 96_364, true, 1024, 8_000, 1_500_000, 600);
    List<Check> checks = small.checks(new Demand(1000, 1, 1000, false, 512 * 1024));

    assertThat(checks.stream().filter(c -> !c.holds()).map(Check::name))
        .containsExactly(
            "ulimit -n (RLIMIT_NOFILE hard, per worker)",
            "vm.max_map_count (per worker)",
            "MemAvailable (kB)");
    assertThat(checks.get(3).need()).isEqualTo(1000 * 3 + 500);
    assertThat(checks.get(4).need()).isEqualTo((1000 * 4 + 100) * 2 + 2000);
    assertThat(checks.get(5).need()).isEqualTo(512 * 1024 + 256 * 1024 + 1000 * 1024);
  }
}
