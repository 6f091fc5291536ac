package dev.carillon.retry.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.alert.AlertKind;
import dev.carillon.alert.Alerts;
import dev.carillon.model.instance.Instance;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.store.DeadAlert;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DEAD is the manual-intervention queue. Each instance that enters it is reported exactly once, by
 * the scanner whose compare-and-set moved it: one ERROR line with its task, window, attempts and
 * last failure, and a counter ({@code carillon.retry.dead{task}}). When an alert webhook is
 * configured, the row also waits in the alert outbox ({@code alerted_at} empty) until {@link
 * AlertOutbox} has delivered it; {@link #body} is what it delivers.
 *
 * <p>The outbox is the only way a DEAD alert leaves the service: it is durable and signed, so DEAD
 * does not go through the in-memory {@link dev.carillon.alert.Alerts} the other alerts (late fires,
 * skipped windows, a growing backlog) use, and is never throttled. Its body has the shape of theirs
 * ({@code event} first, {@value #EVENT}).
 */
public final class DeadLetters {
  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The {@code event} of a DEAD alert's body, as {@link AlertKind#DEAD} names it. */
  public static final String EVENT = "instance.dead";

  private final boolean webhook;
  private final RetryMetrics metrics;
  private final Alerts alerts;

  /**
   * @param webhook whether an alert webhook is configured (the outbox sends the alerts)
   * @param alerts where each DEAD is counted as an alert raised ({@code
   *     carillon.alerts{kind=dead}}); nothing is sent through it
   */
  public DeadLetters(boolean webhook, RetryMetrics metrics, Alerts alerts) {
    this.webhook = webhook;
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.alerts = Objects.requireNonNull(alerts, "alerts");
  }

  /**
   * Whether DEAD instances are alerted beyond the log line: then a new DEAD row waits in the
   * outbox; otherwise the log line is the whole alert and the row is stamped alerted at once.
   */
  public boolean sendsAlerts() {
    return webhook;
  }

  /**
   * Reports an instance that has just been moved to DEAD.
   *
   * @param failed the instance as it was before the move (its last failure reason intact)
   * @param decision why it is dead, e.g. {@code retries used up (3 of 3)}
   */
  public void report(Instance failed, String decision) {
    metrics.dead(failed.taskId());
    alerts.countRaised(AlertKind.DEAD);
    log.error(
        "DEAD instance {} of task {} window {} [{} .. {}): {} after {} attempt(s), {} retr(y/ies);"
            + " last failure ({}): {}",
        failed.id(),
        failed.taskId(),
        failed.windowKey(),
        failed.windowStart(),
        failed.windowEnd(),
        decision,
        failed.attempt(),
        failed.retryCount(),
        failed.status(),
        failed.failReason());
  }

  /**
   * The JSON an alert delivers: the DEAD row (whose reason is the decision, with the policy and the
   * last failure) and its last failure as the event log recorded it.
   */
  public static String body(DeadAlert alert) {
    Instance i = alert.instance();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", EVENT);
    m.put("instanceId", i.id());
    m.put("taskId", i.taskId());
    m.put("windowKey", i.windowKey());
    m.put("windowStart", i.windowStart().toString());
    m.put("windowEnd", i.windowEnd().toString());
    m.put("attempts", i.attempt());
    m.put("retries", i.retryCount());
    m.put("lastStatus", alert.lastStatus() == null ? null : alert.lastStatus().name());
    m.put("lastReason", alert.lastReason());
    m.put("decision", i.failReason());
    m.put("policyVersion", i.policyVersion());
    m.put("deadAt", i.finishedAt() == null ? null : i.finishedAt().toString());
    m.put("idempotencyKey", alert.idempotencyKey());
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the alert of instance " + i.id(), e);
    }
  }
}
