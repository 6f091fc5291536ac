package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
  @Test
  void threads_are_grouped_by_name_without_digits_and_counted_from_the_first_snapshot() {
    Map<Long, ThreadCpu.Sample> before =
        Map.of(
            1L, new ThreadCpu.Sample("kafka-request-handler-1", 5_000_000),
            2L, new ThreadCpu.Sample("kafka-request-handler-2", 1_000_000),
            3L, new ThreadCpu.Sample("main", 9_000_000));
    Map<Long, ThreadCpu.Sample> after =
        Map.of(
            1L, new ThreadCpu.Sample("kafka-request-handler-1", 7_000_000),
            2L, new ThreadCpu.Sample("kafka-request-handler-2", 2_000_000),
            3L, new ThreadCpu.Sample("main", 9_000_000),
            4L, new ThreadCpu.Sample("carillon-claims-w12", 4_000_000));

    Map<String, Long> groups = ThreadCpu.byGroup(before, after);

    // 2 ms + 1 ms for the handlers; the new thread from zero; main spent nothing and is left out.
    assertThat(groups)
        .containsExactly(
            Map.entry("carillon-claims-w#", 4_000_000L),
            Map.entry("kafka-request-handler-#", 3_000_000L));
    assertThat(ThreadCpu.line("bench_x", groups, 1_000, 1))
        .isEqualTo(
            "cost: bench_x this JVM's CPU per instance by thread, run from the due instant:"
                + " carillon-claims-w# 4.0 µs; the other 1 groups 3.0 µs");
    assertThat(ThreadCpu.line("bench_x", Map.of(), 1_000, 5)).endsWith(" not measured");
  }
}
