package dev.carillon.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;

/**
 * The histogram buckets of each timed signal, chosen for the range that signal lives in, so that
 * {@code histogram_quantile} over {@code _bucket} answers with useful resolution where the values
 * are. Buckets are explicit (Micrometer's service-level objectives): a fixed, short list per signal
 * keeps the series count known, where Micrometer's percentile histogram would export ~70 buckets
 * per series whatever the range.
 */
public enum Buckets {
  /** Fire lag, from the fire time to the instance row: 1 ms to 10 min. */
  FIRE_LAG(
      ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500), s(1), s(2), s(5),
      s(10), s(30), m(1), m(2), m(5), m(10)),
  /** One agent run, claim to end: 100 ms to 24 h. */
  RUN_DURATION(
      ms(100), ms(250), ms(500), s(1), s(2), s(5), s(10), s(30), m(1), m(2), m(5), m(10), m(15),
      m(30), h(1), h(2), h(4), h(8), h(12), h(24)),
  /** One database round trip of the service's hot path (a claim, a tick's commit): 1 ms to 10 s. */
  STATEMENT(
      ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500), s(1), s(2), s(5),
      s(10)),
  /** From publication to claim: the time an instance waited for a worker, 1 ms to 10 min. */
  CLAIM_LATENCY(
      ms(1), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500), s(1), s(2), s(5), s(10),
      s(30), m(1), m(5), m(10)),
  /** One trigger tick: 1 ms to 10 s (the tick interval is 1 s by default). */
  TICK(
      ms(1), ms(2), ms(5), ms(10), ms(25), ms(50), ms(100), ms(250), ms(500), s(1), s(2), s(5),
      s(10));

  private final Duration[] bounds;

  Buckets(Duration... bounds) {
    this.bounds = bounds;
  }

  /** The upper bounds, ascending. */
  public List<Duration> bounds() {
    return List.of(bounds);
  }

  /**
   * A timer builder with these buckets and {@code help} as its HELP text.
   *
   * @param name the Micrometer name, e.g. {@code carillon.trigger.fire.lag} (exported as {@code
   *     carillon_trigger_fire_lag_seconds})
   */
  public Timer.Builder timer(String name, String help) {
    return Timer.builder(name)
        .description(help)
        .serviceLevelObjectives(bounds)
        .minimumExpectedValue(bounds[0])
        .maximumExpectedValue(bounds[bounds.length - 1]);
  }

  /** Registers (or finds) a timer without tags. */
  public Timer register(MeterRegistry registry, String name, String help) {
    return timer(name, help).register(registry);
  }

  private static Duration ms(long n) {
    return Duration.ofMillis(n);
  }

  private static Duration s(long n) {
    return Duration.ofSeconds(n);
  }

  private static Duration m(long n) {
    return Duration.ofMinutes(n);
  }

  private static Duration h(long n) {
    return Duration.ofHours(n);
  }
}
