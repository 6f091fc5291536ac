package dev.carillon.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.schedule.CronSchedule;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The full run's layout of long outages and the burst tasks' crons, without IO. */
class LongOutagesTest {
  private static final LongOutages.Settings FULL = new LongOutages.Settings(true, 1);

  @Test
  void thirty_minutes_get_three_blocks_each_outage_at_full_length_in_order() {
    Instant start = Instant.parse("2026-12-01T22:10:07Z");
    List<LongOutages.Block> blocks =
        LongOutages.layout(start, FULL.blocks(Duration.ofMinutes(30)), FULL);

    assertThat(blocks).hasSize(3);
    Instant previousEnd = start;
    for (LongOutages.Block b : blocks) {
      assertThat(b.shortCycleAt()).isEqualTo(previousEnd);
      assertThat(b.postgresHang()).isEqualTo(Duration.ofSeconds(60));
      assertThat(b.zooKeeperDown()).isEqualTo(Duration.ofSeconds(120));
      assertThat(b.kafkaDown()).isEqualTo(Duration.ofSeconds(300));
      // No long outage overlaps the short cycle or another.
      assertThat(b.postgresHangAt()).isAfter(b.shortCycleAt().plus(LongOutages.SHORT_CYCLE));
      assertThat(b.zooKeeperDownAt()).isAfter(b.postgresHangAt().plus(b.postgresHang()));
      assertThat(b.burstFrom()).isAfter(b.zooKeeperDownAt().plus(b.zooKeeperDown()));
      // The burst covers the whole Kafka outage.
      assertThat(b.kafkaDownAt()).isAfter(b.burstFrom());
      assertThat(b.burstUntil()).isAfter(b.kafkaUpAt());
      previousEnd = b.end();
    }
    assertThat(Duration.between(start, previousEnd))
        .isBetween(Duration.ofMinutes(30), Duration.ofMinutes(38));
  }

  @Test
  void the_scale_shortens_the_outages_and_a_short_run_gets_one_block() {
    LongOutages.Settings s = new LongOutages.Settings(true, 0.2);

    assertThat(s.postgresHang()).isEqualTo(Duration.ofSeconds(12));
    assertThat(s.zooKeeperDown()).isEqualTo(Duration.ofSeconds(24));
    assertThat(s.kafkaDown()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.blocks(Duration.ofMinutes(5))).isEqualTo(1);
    assertThatThrownBy(() -> new LongOutages.Settings(true, 0))
        .hasMessageContaining("faults.long-outage-scale=0.0");
  }

  @Test
  void a_burst_across_an_hour_fires_every_second_of_it_and_nothing_else() {
    Instant from = Instant.parse("2026-12-31T23:57:00Z");
    Instant until = Instant.parse("2027-01-01T00:02:00Z");

    List<String> crons = LongOutages.everySecond(from, until);

    assertThat(crons).containsExactly("* 57-59 23 31 12 ?", "* 0-1 0 1 1 ?");
    Set<Instant> fires = new HashSet<>();
    for (String c : crons) {
      fires.addAll(
          CronSchedule.parse(c, ZoneOffset.UTC)
              .fireTimes(from.minus(Duration.ofDays(2)), until.plus(Duration.ofDays(2)), 10_000));
    }
    assertThat(fires).hasSize(300).allMatch(t -> !t.isBefore(from) && t.isBefore(until));
    assertThatThrownBy(() -> LongOutages.everySecond(from.plusSeconds(1), until))
        .hasMessageContaining("whole minutes");
  }

  @Test
  void burst_tasks_give_the_rate_per_cron_piece() {
    List<LongOutages.Block> blocks =
        LongOutages.layout(Instant.parse("2026-12-01T22:10:07Z"), 1, FULL);

    List<Workload.TaskSpec> burst = LongOutages.burstTasks(blocks);

    int pieces =
        LongOutages.everySecond(blocks.get(0).burstFrom(), blocks.get(0).burstUntil()).size();
    assertThat(burst).hasSize(pieces * LongOutages.FIRES_PER_SECOND);
    assertThat(burst)
        .allMatch(
            t -> t.id().startsWith(LongOutages.BURST_PREFIX) && t.kind() == Workload.Kind.BURST);
  }

  @Test
  void the_kafka_outage_check_fails_on_each_missing_proof() {
    LongOutages.KafkaOutage good =
        new LongOutages.KafkaOutage(
            1,
            Duration.ofSeconds(60),
            100,
            2000,
            2000,
            4000,
            55,
            Duration.ofSeconds(8),
            250 * 1024,
            30);
    assertThat(LongOutages.kafkaOutage(good).ok()).isTrue();

    assertThat(LongOutages.kafkaOutage(withRate(good, 60)).ok()).as("slow burst").isFalse();
    assertThat(
            LongOutages.kafkaOutage(
                    new LongOutages.KafkaOutage(
                        1,
                        good.down(),
                        100,
                        2001,
                        2000,
                        4000,
                        55,
                        good.fellBackAfter(),
                        good.triggerHwmKb(),
                        30))
                .ok())
        .as("queue past its bound")
        .isFalse();
    assertThat(
            LongOutages.kafkaOutage(
                    new LongOutages.KafkaOutage(
                        1,
                        good.down(),
                        100,
                        2000,
                        2000,
                        0,
                        55,
                        good.fellBackAfter(),
                        good.triggerHwmKb(),
                        30))
                .ok())
        .as("nothing deferred")
        .isFalse();
    assertThat(
            LongOutages.kafkaOutage(
                    new LongOutages.KafkaOutage(
                        1,
                        good.down(),
                        100,
                        2000,
                        2000,
                        4000,
                        10,
                        good.fellBackAfter(),
                        good.triggerHwmKb(),
                        30))
                .ok())
        .as("alert metric never rose")
        .isFalse();
    assertThat(
            LongOutages.kafkaOutage(
                    new LongOutages.KafkaOutage(
                        1, good.down(), 100, 2000, 2000, 4000, 55, null, good.triggerHwmKb(), 30))
                .ok())
        .as("alert metric never fell back")
        .isFalse();
    assertThat(
            LongOutages.kafkaOutage(
                    new LongOutages.KafkaOutage(
                        1,
                        good.down(),
                        100,
                        2000,
                        2000,
                        4000,
                        55,
                        good.fellBackAfter(),
                        900 * 1024,
                        30))
                .ok())
        .as("trigger memory past the bound")
        .isFalse();
  }

  private static LongOutages.KafkaOutage withRate(LongOutages.KafkaOutage k, double rate) {
    return new LongOutages.KafkaOutage(
        k.block(),
        k.down(),
        rate,
        k.backlogPeak(),
        k.backlogBound(),
        k.deferred(),
        k.oldestAgePeak(),
        k.fellBackAfter(),
        k.triggerHwmKb(),
        k.samples());
  }
}
