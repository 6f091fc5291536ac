package dev.carillon.control.resources;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.OverviewQueries.HourCount;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which hours the overview counts per request, and that what it answers is what was counted. */
class HourCountsTest {
  private static final Duration H = Duration.ofHours(1);
  private static final Instant NOW = Instant.parse("2026-12-07T10:30:00Z");
  private static final Instant TO = Instant.parse("2026-12-07T11:00:00Z");

  /** The "table": per hour, per status, a count; the counter reads it and records each range. */
  private final Map<Instant, Map<InstanceStatus, Long>> rows = new TreeMap<>();

  private final List<String> counted = new ArrayList<>();
  private final AtomicLong nanos = new AtomicLong();
  private final HourCounts counts = new HourCounts(this::count, 168, nanos::get);

  private List<HourCount> count(Instant from, Instant to) {
    counted.add(from + ".." + to);
    List<HourCount> out = new ArrayList<>();
    rows.forEach(
        (h, byStatus) -> {
          if (!h.isBefore(from) && h.isBefore(to)) {
            byStatus.forEach((s, n) -> out.add(new HourCount(h, s, n)));
          }
        });
    return out;
  }

  private void put(Instant hour, InstanceStatus status, long n) {
    // Ordered by the status's name, as the query orders them.
    rows.computeIfAbsent(hour, h -> new TreeMap<>(Comparator.comparing(Enum::name))).put(status, n);
  }

  HourCountsTest() {
    for (Instant h = TO.minus(H.multipliedBy(24)); h.isBefore(TO); h = h.plus(H)) {
      put(h, InstanceStatus.SUCCESS, 40_000);
    }
    put(TO.minus(H.multipliedBy(5)), InstanceStatus.DEAD, 3);
    put(TO.minus(H), InstanceStatus.RUNNING, 12);
  }

  @Test
  void the_first_request_counts_each_earlier_hour_once_then_only_the_live_ones() {
    List<HourCount> first = counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW);
    List<HourCount> second = counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW);

    List<String> expected = new ArrayList<>();
    for (Instant h = TO.minus(H.multipliedBy(24)); h.isBefore(TO.minus(H.multipliedBy(2))); ) {
      expected.add(h + ".." + (h = h.plus(H)));
    }
    expected.add("2026-12-07T09:00:00Z..2026-12-07T11:00:00Z");
    expected.add("2026-12-07T09:00:00Z..2026-12-07T11:00:00Z");
    assertThat(counted)
        .as("each earlier hour once, one statement each; then only the live hours")
        .containsExactlyElementsOf(expected);
    assertThat(first).isEqualTo(count(TO.minus(H.multipliedBy(24)), TO)).hasSize(26);
    assertThat(second).isEqualTo(first);
    assertThat(counts.keptHours()).isEqualTo(22);
  }

  @Test
  void a_warm_up_counts_the_earlier_hours_so_the_first_request_counts_only_the_live_ones() {
    Instant from = TO.minus(H.multipliedBy(24));
    assertThat(counts.warmUp(from, NOW)).isEqualTo(22);
    assertThat(counted).as("one statement per earlier hour, not the live ones").hasSize(22);
    assertThat(counts.warmUp(from, NOW)).as("kept hours are not counted again").isZero();
    assertThat(counted).hasSize(22);

    counted.clear();
    List<HourCount> first = counts.perHour(from, TO, NOW);

    assertThat(counted).containsExactly("2026-12-07T09:00:00Z..2026-12-07T11:00:00Z");
    assertThat(first).isEqualTo(count(from, TO));
  }

  @Test
  void an_earlier_hour_changed_shows_once_its_counts_are_older_than_the_max_age() {
    counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW);
    Instant oldest = TO.minus(H.multipliedBy(24));
    put(oldest, InstanceStatus.DEAD, 1);
    put(TO.minus(H.multipliedBy(23)), InstanceStatus.DEAD, 1);

    List<HourCount> fresh = counts.perHour(oldest, TO, NOW);
    assertThat(fresh).as("kept counts are used within the max age").doesNotContain(dead(oldest));

    nanos.addAndGet(HourCounts.MAX_AGE.toNanos() + 1);
    counted.clear();
    List<HourCount> once = counts.perHour(oldest, TO, NOW);
    List<HourCount> twice = counts.perHour(oldest, TO, NOW);

    assertThat(counted)
        .as("one stale hour counted again per request, the stalest (here the oldest) first")
        .containsExactly(
            "2026-12-06T11:00:00Z..2026-12-06T12:00:00Z",
            "2026-12-07T09:00:00Z..2026-12-07T11:00:00Z",
            "2026-12-06T12:00:00Z..2026-12-06T13:00:00Z",
            "2026-12-07T09:00:00Z..2026-12-07T11:00:00Z");
    assertThat(once).contains(dead(oldest)).doesNotContain(dead(oldest.plus(H)));
    assertThat(twice).isEqualTo(count(oldest, TO));
  }

  @Test
  void the_live_hours_are_counted_on_every_request() {
    counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW);
    put(TO.minus(H), InstanceStatus.RUNNING, 13);
    put(TO.minus(H.multipliedBy(2)), InstanceStatus.FAILED, 2);

    assertThat(counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW))
        .contains(
            new HourCount(TO.minus(H), InstanceStatus.RUNNING, 13),
            new HourCount(TO.minus(H.multipliedBy(2)), InstanceStatus.FAILED, 2));
  }

  @Test
  void when_the_hour_turns_the_hour_that_closed_is_counted_and_kept_hours_stay_bounded() {
    counts.perHour(TO.minus(H.multipliedBy(24)), TO, NOW);
    counted.clear();
    Instant later = NOW.plus(H);
    counts.perHour(TO.plus(H).minus(H.multipliedBy(24)), TO.plus(H), later);

    assertThat(counted)
        .containsExactly(
            "2026-12-07T09:00:00Z..2026-12-07T10:00:00Z",
            "2026-12-07T10:00:00Z..2026-12-07T12:00:00Z");

    HourCounts small = new HourCounts(this::count, 24, nanos::get);
    for (int i = 0; i < 72; i++) {
      Instant to = TO.plus(H.multipliedBy(i));
      small.perHour(to.minus(H.multipliedBy(24)), to, NOW.plus(H.multipliedBy(i)));
    }
    assertThat(small.keptHours()).isLessThanOrEqualTo(24 + 1);
  }

  @Test
  void a_window_of_only_live_hours_is_counted_directly() {
    List<HourCount> two = counts.perHour(TO.minus(H.multipliedBy(2)), TO, NOW);

    assertThat(counted).containsExactly("2026-12-07T09:00:00Z..2026-12-07T11:00:00Z");
    assertThat(two).isEqualTo(count(TO.minus(H.multipliedBy(2)), TO));
    assertThat(counts.keptHours()).isZero();
  }

  private static HourCount dead(Instant hour) {
    return new HourCount(hour, InstanceStatus.DEAD, 1);
  }
}
