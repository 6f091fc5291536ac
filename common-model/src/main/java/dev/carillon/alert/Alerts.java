package dev.carillon.alert;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a service raises alerts: each alert is counted ({@code carillon.alerts{kind}}), logged once
 * (WARN) and handed to the {@link AlertSink}. An alert that can repeat (a late fire, skipped
 * windows, a backlog) goes through {@link #raise}, which lets one alert per kind and key through
 * per {@code repeatAfter} and counts the others as suppressed; an alert that is news every time
 * goes through {@link #raiseEach}. The retry service's DEAD alerts do not come here: they are
 * delivered from a durable outbox and only counted ({@link #countRaised}).
 *
 * <p>Thread-safe. Owns the sink: {@link #close()} closes it.
 */
public final class Alerts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Alerts.class);

  private record Key(AlertKind kind, String key) {}

  private final AlertSink sink;
  private final Duration repeatAfter;
  private final Clock clock;
  private final MeterRegistry registry;
  private final Map<Key, Instant> lastSent = new ConcurrentHashMap<>();

  /**
   * @param sink where alerts go
   * @param repeatAfter the least time between two alerts of one kind and key through {@link #raise}
   * @param clock when alerts were raised
   * @param registry where alerts are counted
   */
  public Alerts(AlertSink sink, Duration repeatAfter, Clock clock, MeterRegistry registry) {
    this.sink = Objects.requireNonNull(sink, "sink");
    this.repeatAfter = Objects.requireNonNull(repeatAfter, "repeatAfter");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.registry = Objects.requireNonNull(registry, "registry");
    for (AlertKind k : AlertKind.values()) {
      raised(k);
      suppressed(k);
    }
  }

  /** Alerts that go nowhere beyond their log line and metric (tests, no webhook). */
  public static Alerts logOnly(Clock clock, MeterRegistry registry) {
    return new Alerts(AlertSink.none(), Duration.ZERO, clock, registry);
  }

  /**
   * Raises {@code alert} unless one of its kind and key was sent less than {@code repeatAfter} ago;
   * the log line names {@code text}.
   *
   * @return whether it was sent (false: suppressed as a repeat)
   */
  public boolean raise(Alert alert, String text) {
    Instant now = clock.instant();
    Key k = new Key(alert.kind(), alert.key());
    boolean[] send = {false};
    lastSent.compute(
        k,
        (key, last) -> {
          if (last == null || !now.isBefore(last.plus(repeatAfter))) {
            send[0] = true;
            return now;
          }
          return last;
        });
    if (!send[0]) {
      suppressed(alert.kind()).increment();
      return false;
    }
    log.warn("ALERT {} {}: {}", alert.kind().event(), alert.key(), text);
    raised(alert.kind()).increment();
    sink.send(alert);
    return true;
  }

  /**
   * Raises {@code alert} without throttling; the caller logged what it is about.
   *
   * @return the sink's delivery (see {@link AlertSink#send})
   */
  public CompletableFuture<Boolean> raiseEach(Alert alert) {
    raised(alert.kind()).increment();
    return sink.send(alert);
  }

  /**
   * Counts an alert of {@code kind} that another channel delivers ({@code carillon.alerts{kind}}):
   * a DEAD instance's alert goes through the retry service's durable outbox, not this sink.
   */
  public void countRaised(AlertKind kind) {
    raised(kind).increment();
  }

  /** The channel, for the startup log. */
  public String describe() {
    return sink.toString();
  }

  private Counter raised(AlertKind kind) {
    return Counter.builder("carillon.alerts")
        .description("alerts raised, by kind (sent to the webhook when one is configured)")
        .tag("kind", kind.label())
        .register(registry);
  }

  private Counter suppressed(AlertKind kind) {
    return Counter.builder("carillon.alerts.suppressed")
        .description(
            "alerts not sent because the same kind and task was alerted within"
                + " alert.repeat-after")
        .tag("kind", kind.label())
        .register(registry);
  }

  @Override
  public void close() {
    sink.close();
  }
}
