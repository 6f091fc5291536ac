package dev.carillon.worker.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fence inequality, {@code grace(L) + ρL ≤ margin(L)}, for every lease a task may have. */
class LeaseFenceTest {
  private static final LeaseFence DEFAULTS =
      new LeaseFence(Duration.ofSeconds(10), Duration.ofSeconds(5));

  private static Duration drift(Duration lease) {
    return Duration.ofNanos((long) Math.ceil(lease.toNanos() * LeaseFence.CLOCK_RATE_ALLOWANCE));
  }

  @Test
  void a_stopped_run_ends_before_the_lease_can_expire_for_every_lease_length() {
    for (Duration lease :
        List.of(
            Duration.ofMillis(400),
            Duration.ofSeconds(1),
            Duration.ofSeconds(6),
            Duration.ofSeconds(30),
            Duration.ofMinutes(30),
            Duration.ofHours(24))) {
      Duration stoppedAt = DEFAULTS.fenceAfter(lease);
      Duration endedBy = stoppedAt.plus(DEFAULTS.graceFor(lease));
      assertThat(endedBy.plus(drift(lease)))
          .as("lease %s: stopped at %s, ended by %s", lease, stoppedAt, endedBy)
          .isLessThanOrEqualTo(lease);
      assertThat(stoppedAt).as("lease %s", lease).isPositive();
    }
  }

  @Test
  void the_margin_is_the_configured_one_for_long_leases_and_a_third_for_short_ones() {
    assertThat(DEFAULTS.marginFor(Duration.ofMinutes(30)))
        .isEqualTo(Duration.ofSeconds(10).plus(Duration.ofMillis(360)));
    assertThat(DEFAULTS.fenceAfter(Duration.ofMinutes(30)))
        .isEqualTo(Duration.ofMinutes(30).minusSeconds(10).minusMillis(360));
    assertThat(DEFAULTS.marginFor(Duration.ofSeconds(6)))
        .isEqualTo(Duration.ofSeconds(2).plus(Duration.ofNanos(1_200_000)));
    assertThat(DEFAULTS.graceFor(Duration.ofSeconds(6))).isEqualTo(Duration.ofSeconds(2));
    assertThat(DEFAULTS.graceFor(Duration.ofMinutes(30))).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void a_renewal_interval_that_cannot_renew_before_the_fence_is_told() {
    Duration tick = Heartbeater.TICK;
    assertThat(
            DEFAULTS.renewable(
                Duration.ofMinutes(30),
                Heartbeater.intervalFor(java.util.Optional.empty(), Duration.ofMinutes(30)),
                tick))
        .isTrue();
    assertThat(
            DEFAULTS.renewable(
                Duration.ofSeconds(1),
                Heartbeater.intervalFor(java.util.Optional.empty(), Duration.ofSeconds(1)),
                tick))
        .isTrue();
    assertThat(DEFAULTS.renewable(Duration.ofSeconds(30), Duration.ofSeconds(25), tick)).isFalse();
  }

  @Test
  void a_grace_not_shorter_than_the_margin_is_refused() {
    assertThatThrownBy(() -> new LeaseFence(Duration.ofSeconds(5), Duration.ofSeconds(5)))
        .hasMessageContaining("stopGrace (PT5S) must be shorter than margin (PT5S)");
  }

  @Test
  void an_agent_that_takes_time_to_stop_is_stopped_that_much_earlier_and_still_ends_in_time() {
    Duration lease = Duration.ofMinutes(5);
    Duration allowance = Duration.ofSeconds(17); // a process tree: grace 10 s, kill wait, readers
    Duration stoppedAt = DEFAULTS.fenceAfter(lease, allowance);
    assertThat(stoppedAt).isEqualTo(DEFAULTS.fenceAfter(lease).minus(allowance));
    Duration endedBy = stoppedAt.plus(allowance).plus(DEFAULTS.graceFor(lease));
    assertThat(endedBy.plus(drift(lease))).isLessThanOrEqualTo(lease);
    assertThat(DEFAULTS.fencesInTime(lease, allowance)).isTrue();

    Duration shortLease = Duration.ofSeconds(15);
    assertThat(DEFAULTS.fencesInTime(shortLease, allowance))
        .as("a grace longer than the lease leaves no time to stop it before the lease expires")
        .isFalse();
    assertThat(DEFAULTS.fenceAfter(shortLease, allowance))
        .as("never before a healthy worker's renewal")
        .isEqualTo(Duration.ofSeconds(5));
  }
}
