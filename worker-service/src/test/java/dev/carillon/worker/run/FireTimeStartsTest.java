package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * When a run claimed ahead may start, against a simulated database clock: a fixed offset from the
 * local clock, read somewhere inside each round trip. No IO; the local clock is moved by hand.
 */
class FireTimeStartsTest {
  private static final Instant EPOCH_AT_ZERO = Instant.parse("2026-12-07T08:00:00Z");

  /** The local monotonic clock, in nanoseconds, moved by the simulated reads and by the test. */
  private final AtomicLong local = new AtomicLong(1_000_000_000L);

  /**
   * A database whose clock is {@code offset} ahead of the local one; each read takes {@code
   * roundTrip}, and the database reads its clock {@code readAt} into it.
   */
  private Supplier<Instant> database(Duration offset, Duration roundTrip, Duration readAt) {
    return () -> {
      long sent = local.get();
      Instant read = EPOCH_AT_ZERO.plusNanos(sent + readAt.toNanos()).plus(offset);
      local.set(sent + roundTrip.toNanos());
      return read;
    };
  }

  /** The local nanoTime at which the simulated database's clock reads {@code t}. */
  private static long localWhen(Instant t, Duration offset) {
    return Duration.between(EPOCH_AT_ZERO.plus(offset), t).toNanos();
  }

  @Test
  void a_run_starts_when_the_databases_clock_reaches_its_fire_time_never_before() {
    for (Duration offset :
        new Duration[] {Duration.ZERO, Duration.ofSeconds(7), Duration.ofMillis(-350)}) {
      for (Duration readAt : new Duration[] {Duration.ZERO, micros(150), micros(300)}) {
        local.set(1_000_000_000L);
        FireTimeStarts starts =
            new FireTimeStarts(
                Duration.ofMillis(300), database(offset, micros(300), readAt), local::get);
        long claimed = local.get();
        Instant fire = EPOCH_AT_ZERO.plusNanos(claimed).plus(offset).plusMillis(120);

        long start = starts.startNanos(fire, claimed);

        long due = localWhen(fire, offset);
        assertThat(start)
            .as("offset %s, read %s into a 300 µs round trip", offset, readAt)
            .isGreaterThanOrEqualTo(due)
            .isLessThanOrEqualTo(due + micros(300).toNanos());
      }
    }
  }

  @Test
  void the_claim_bounds_the_start_when_the_clock_cannot_be_read() {
    AtomicInteger reads = new AtomicInteger();
    FireTimeStarts starts =
        new FireTimeStarts(
            Duration.ofMillis(300),
            () -> {
              reads.incrementAndGet();
              throw new IllegalStateException("database down");
            },
            local::get);
    long claimed = local.get();

    // The claim took only instances due within 300 ms of the database's clock at its start.
    assertThat(starts.startNanos(EPOCH_AT_ZERO.plusSeconds(3600), claimed))
        .isEqualTo(claimed + Duration.ofMillis(300).toNanos());
    assertThat(reads.get()).as("tried once per start while failing").isEqualTo(1);
    assertThat(starts.startNanos(EPOCH_AT_ZERO, claimed)).isEqualTo(claimed + 300_000_000L);
    assertThat(reads.get()).isEqualTo(2);
  }

  @Test
  void the_earlier_of_the_two_bounds_is_used() {
    FireTimeStarts starts =
        new FireTimeStarts(
            Duration.ofMillis(300),
            database(Duration.ZERO, micros(200), Duration.ZERO),
            local::get);
    long claimed = local.get();
    // A fire time later than the claim allowed (a row edited meanwhile, a database clock stepped
    // back): the claim's bound still holds and comes first.
    Instant far = EPOCH_AT_ZERO.plusNanos(claimed).plusSeconds(10);
    assertThat(starts.startNanos(far, claimed)).isEqualTo(claimed + 300_000_000L);
  }

  @Test
  void the_clock_is_measured_again_once_the_measurement_is_old() {
    AtomicInteger reads = new AtomicInteger();
    Supplier<Instant> db = database(Duration.ofSeconds(2), micros(100), Duration.ZERO);
    FireTimeStarts starts =
        new FireTimeStarts(
            Duration.ofMillis(300),
            () -> {
              reads.incrementAndGet();
              return db.get();
            },
            local::get);
    starts.startNanos(EPOCH_AT_ZERO, local.get());
    assertThat(reads.get()).isEqualTo(FireTimeStarts.SAMPLES);
    local.addAndGet(FireTimeStarts.REMEASURE_AFTER.toNanos() - 1_000_000);
    starts.startNanos(EPOCH_AT_ZERO, local.get());
    assertThat(reads.get()).as("still fresh").isEqualTo(FireTimeStarts.SAMPLES);
    local.addAndGet(2_000_000);
    starts.startNanos(EPOCH_AT_ZERO, local.get());
    assertThat(reads.get()).isEqualTo(2 * FireTimeStarts.SAMPLES);
  }

  @Test
  void without_claim_ahead_every_run_starts_at_once_and_nothing_is_read() {
    FireTimeStarts starts = FireTimeStarts.atOnce();
    assertThat(starts.claimsAhead()).isFalse();
    assertThat(starts.startNanos(Instant.now().plusSeconds(60), 42L)).isEqualTo(42L);
    assertThatThrownBy(
            () -> new FireTimeStarts(Duration.ofMillis(-1), () -> EPOCH_AT_ZERO, local::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("claimAhead must not be negative, was PT-0.001S");
  }

  private static Duration micros(long n) {
    return Duration.ofNanos(n * 1_000L);
  }
}
