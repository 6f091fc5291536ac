package dev.carillon.retry.stats;

import dev.carillon.alert.Alert;
import dev.carillon.alert.AlertKind;
import dev.carillon.alert.Alerts;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.InstanceStatsStore;
import dev.carillon.store.InstanceStatsStore.InstanceStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The instance gauges, computed by the retry leader on an interval ({@link #refresh}), never per
 * scrape: a scrape reads the last result. A standby exports NaN (it does not know; the leader
 * does), so {@code max} over the replicas is the leader's value.
 *
 * <ul>
 *   <li>{@code carillon_instances{status}}: live instances per status, and DEAD (the manual queue)
 *   <li>{@code carillon_instances_oldest_age_seconds{state}}: how long the longest-waiting {@code
 *       pending} instance has been PENDING, the same among those never published ({@code
 *       undispatched}), and how far past its retry time the most overdue RETRY_WAIT instance is
 *       ({@code overdue_retry}); 0 when none waits
 * </ul>
 *
 * <p>When one of the ages passes {@code alert.backlog-after}, a {@link AlertKind#BACKLOG} alert is
 * raised (at most once per {@code alert.repeat-after} per state).
 *
 * <p>Thread-safe.
 */
public final class InstanceGauges {
  /** How often the leader refreshes the gauges. */
  public static final Duration INTERVAL = Duration.ofSeconds(15);

  /** The gauged statuses. */
  static final List<InstanceStatus> STATUSES =
      List.of(
          InstanceStatus.PENDING,
          InstanceStatus.RUNNING,
          InstanceStatus.RETRY_WAIT,
          InstanceStatus.FAILED,
          InstanceStatus.TIMEOUT,
          InstanceStatus.DEAD);

  private final InstanceStatsStore store;
  private final Alerts alerts;
  private final Duration backlogAfter;
  private final Clock clock;
  private final AtomicReference<InstanceStats> last = new AtomicReference<>();

  public InstanceGauges(
      InstanceStatsStore store,
      Alerts alerts,
      Duration backlogAfter,
      Clock clock,
      MeterRegistry registry) {
    this.store = store;
    this.alerts = alerts;
    this.backlogAfter = backlogAfter;
    this.clock = clock;
    for (InstanceStatus s : STATUSES) {
      Gauge.builder("carillon.instances", last, r -> count(r.get(), s))
          .description(
              "instances per status (live statuses and DEAD), read by the retry leader every "
                  + INTERVAL.toSeconds()
                  + "s; NaN on a standby")
          .tag("status", s.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    age(registry, "pending", InstanceStats::oldestPending);
    age(registry, "undispatched", InstanceStats::oldestUndispatched);
    age(registry, "overdue_retry", InstanceStats::oldestOverdueRetry);
  }

  private void age(
      MeterRegistry registry, String state, Function<InstanceStats, Optional<Duration>> of) {
    Gauge.builder(
            "carillon.instances.oldest.age",
            last,
            r ->
                r.get() == null
                    ? Double.NaN
                    : of.apply(r.get()).map(d -> d.toMillis() / 1000.0).orElse(0.0))
        .description(
            "how long the oldest instance has waited: pending (since it became PENDING),"
                + " undispatched (PENDING, never published), overdue_retry (RETRY_WAIT past its"
                + " retry time); NaN on a standby")
        .baseUnit("seconds")
        .tag("state", state)
        .register(registry);
  }

  private static double count(InstanceStats s, InstanceStatus status) {
    return s == null ? Double.NaN : s.counts().getOrDefault(status, 0L);
  }

  /** Reads the stats now (leader), sets the gauges and raises backlog alerts. */
  public InstanceStats refresh() {
    InstanceStats s = store.read();
    last.set(s);
    check("pending", s.oldestPending(), s);
    check("undispatched", s.oldestUndispatched(), s);
    check("overdue_retry", s.oldestOverdueRetry(), s);
    return s;
  }

  /** Forgets the stats (leadership lost): the gauges read NaN until the next refresh. */
  public void clear() {
    last.set(null);
  }

  private void check(String state, Optional<Duration> age, InstanceStats s) {
    if (age.isEmpty() || age.get().compareTo(backlogAfter) <= 0) {
      return;
    }
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("state", state);
    f.put("oldestAgeMs", age.get().toMillis());
    f.put("boundMs", backlogAfter.toMillis());
    f.put("pending", s.counts().getOrDefault(InstanceStatus.PENDING, 0L));
    f.put("retryWait", s.counts().getOrDefault(InstanceStatus.RETRY_WAIT, 0L));
    f.put("at", clock.instant().toString());
    alerts.raise(
        new Alert(AlertKind.BACKLOG, state, f),
        "the oldest "
            + state
            + " instance has waited "
            + age.get()
            + ", over the bound of "
            + backlogAfter
            + " ("
            + s.counts().getOrDefault(InstanceStatus.PENDING, 0L)
            + " PENDING, "
            + s.counts().getOrDefault(InstanceStatus.RETRY_WAIT, 0L)
            + " RETRY_WAIT)");
  }
}
