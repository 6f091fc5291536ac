package dev.carillon.retry.alert;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.tuning.EffectivePolicy;
import dev.carillon.retry.RetryMetrics;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DEAD is the manual-intervention queue. Each instance that enters it is reported exactly once, by
 * the scanner whose compare-and-set moved it: one ERROR line with its task, window, attempts and
 * last failure, a counter, and (when a webhook is configured) a JSON alert.
 */
public final class DeadLetters {
  private static final Logger log = LoggerFactory.getLogger(DeadLetters.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Optional<WebhookAlerter> webhook;
  private final RetryMetrics metrics;

  public DeadLetters(Optional<WebhookAlerter> webhook, RetryMetrics metrics) {
    this.webhook = Objects.requireNonNull(webhook, "webhook");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /** Whether DEAD instances are alerted beyond the log line (a webhook is configured). */
  public boolean sendsAlerts() {
    return webhook.isPresent();
  }

  /**
   * Reports an instance that has just been moved to DEAD.
   *
   * @param failed the instance as it was before the move (its last failure reason intact)
   * @param decision why it is dead, e.g. {@code retries used up (3 of 3)}
   * @param at when it was moved (the reporting clock)
   */
  public void report(Instance failed, String decision, EffectivePolicy policy, Instant at) {
    metrics.dead();
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
    webhook.ifPresent(w -> w.submit(body(failed, decision, policy, at)));
  }

  static String body(Instance failed, String decision, EffectivePolicy policy, Instant at) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("event", "instance.dead");
    m.put("instanceId", failed.id());
    m.put("taskId", failed.taskId());
    m.put("windowKey", failed.windowKey());
    m.put("windowStart", failed.windowStart().toString());
    m.put("windowEnd", failed.windowEnd().toString());
    m.put("attempts", failed.attempt());
    m.put("retries", failed.retryCount());
    m.put("lastStatus", failed.status().name());
    m.put("lastReason", failed.failReason());
    m.put("decision", decision);
    m.put("policy", policy.describe(failed.taskId()));
    m.put("policyVersion", policy.version());
    m.put("at", at.toString());
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the alert of instance " + failed.id(), e);
    }
  }
}
