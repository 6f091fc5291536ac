package dev.carillon.trigger.tick;

import dev.carillon.alert.Alert;
import dev.carillon.alert.AlertKind;
import dev.carillon.alert.AlertSettings;
import dev.carillon.alert.Alerts;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.plan.TaskTickSummary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What the tick tells beyond its rows: the first spans of each new instance's trace, and the alerts
 * for late fires and windows skipped by the catch-up limit.
 *
 * <p>Each PENDING instance a tick creates gets its trace's root span {@code tick} (from the tick's
 * start to its chunk's commit, with the derived ids every later span of the instance continues; see
 * {@link Tracing#startInstanceRoot}) and a child {@code insert} (the commit). A tick's chunks
 * commit on several threads; each chunk's instances get their spans as it commits.
 *
 * <p>Thread-safe.
 */
public final class TickTelemetry {
  private final Tracing tracing;
  private final Alerts alerts;
  private final AlertSettings settings;

  /**
   * @param tracing where the spans go
   * @param alerts where late fires and skipped windows are raised
   * @param settings the late-fire bounds
   */
  public TickTelemetry(Tracing tracing, Alerts alerts, AlertSettings settings) {
    this.tracing = Objects.requireNonNull(tracing, "tracing");
    this.alerts = Objects.requireNonNull(alerts, "alerts");
    this.settings = Objects.requireNonNull(settings, "settings");
  }

  /** No spans, alerts only logged and counted in a registry of their own, default bounds. */
  public static TickTelemetry off() {
    return new TickTelemetry(
        Tracing.off(),
        Alerts.logOnly(Clock.systemUTC(), new SimpleMeterRegistry()),
        AlertSettings.defaults());
  }

  /** Starts and ends the {@code tick} and {@code insert} spans of a committed chunk's instances. */
  void traced(List<Instance> created, long tickStartNanos, long commitStartNanos) {
    if (!tracing.enabled()) {
      // Off: the spans would be no-ops, and this runs for every instance of every tick.
      return;
    }
    long now = Tracing.now();
    for (Instance i : created) {
      if (i.status() != InstanceStatus.PENDING) {
        continue;
      }
      Span root = tracing.startInstanceRoot("tick", i.id(), tickStartNanos);
      root.setAttribute(Tracing.TASK, i.taskId());
      root.setAttribute(Tracing.WINDOW, i.windowKey());
      root.setAttribute("carillon.origin", i.origin().name());
      root.setAttribute("carillon.scheduled_at", i.scheduledAt().toString());
      tracing
          .tracer()
          .spanBuilder("insert")
          .setParent(Context.root().with(root))
          .setStartTimestamp(commitStartNanos, TimeUnit.NANOSECONDS)
          .setAttribute(Tracing.INSTANCE, i.id())
          .setAttribute("db.system", "postgresql")
          .startSpan()
          .end(now, TimeUnit.NANOSECONDS);
      root.end(now, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The late-fire bound of the instance's task; a fire over it is counted and alerted.
   *
   * @return whether it was late
   */
  boolean lateFire(Instance i, Duration lag, Instant now, TriggerMetrics metrics) {
    Duration bound = settings.lateFireAfter(i.taskId());
    if (lag.compareTo(bound) <= 0) {
      return false;
    }
    metrics.lateFire(i.taskId());
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("taskId", i.taskId());
    f.put("windowKey", i.windowKey());
    f.put("instanceId", i.id());
    f.put("origin", i.origin().name());
    f.put("scheduledAt", i.scheduledAt().toString());
    f.put("createdAt", now.toString());
    f.put("lagMs", lag.toMillis());
    f.put("boundMs", bound.toMillis());
    alerts.raise(
        new Alert(AlertKind.LATE_FIRE, i.taskId(), f),
        "window "
            + i.windowKey()
            + " (fire time "
            + i.scheduledAt()
            + ") created "
            + lag
            + " late, over the bound of "
            + bound);
    return true;
  }

  /** Alerts windows recorded SKIPPED by the catch-up limit. */
  void skippedByCatchUp(TaskTickSummary s, Instant now) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("taskId", s.taskId());
    f.put("windows", s.count());
    f.put("firstWindow", s.firstWindow());
    f.put("reason", s.reason());
    f.put("at", now.toString());
    alerts.raise(
        new Alert(AlertKind.WINDOWS_SKIPPED, s.taskId(), f),
        s.count() + " window(s) skipped by the catch-up limit, first " + s.firstWindow());
  }
}
