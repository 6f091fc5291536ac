package dev.carillon.retry.alert;

import dev.carillon.election.Fencing;
import dev.carillon.model.retry.ExponentialBackoff;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.store.DeadAlert;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.RetryStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DEAD-alert outbox: DEAD rows whose {@code alerted_at} is empty are delivered to the alert
 * webhook, oldest first, and stamped once the webhook acknowledged them (2xx), under the retry
 * leader's fence. Nothing waits in memory: a restart, or a new leader, picks up where the last one
 * stopped, so an alert is delivered at least once however long the webhook is down; its {@code
 * Idempotency-Key} lets the receiver drop the rare second delivery (a crash between the answer and
 * the stamp).
 *
 * <p>A failed delivery (an error or a non-2xx answer) ends the round and the outbox waits before
 * the next one, {@link #FIRST_BACKOFF} doubling up to {@link #MAX_BACKOFF}; the first failure of a
 * streak is logged, then the 2nd, 4th, 8th..., and the first success after it. An alert whose body
 * cannot be written is quarantined ({@link RetryStore#quarantine}) rather than blocking the rest.
 *
 * <p>{@link #sendOnce()} is one round; the retry service runs it on its own loop while leading.
 */
public final class AlertOutbox {
  /** Alerts per round at most. */
  public static final int BATCH = 100;

  /** The wait after a first failed delivery. */
  public static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  /** The longest wait between rounds while deliveries fail. */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(5);

  /** The scanner name of quarantines this outbox makes. */
  public static final String SCANNER = "alert";

  private static final Logger log = LoggerFactory.getLogger(AlertOutbox.class);

  private final RetryStore store;
  private final AlertWebhook webhook;
  private final Fencing fencing;
  private final RetryMetrics metrics;
  private final String actor;
  private final LongSupplier nanos;
  private final ExponentialBackoff backoff =
      ExponentialBackoff.doubling(FIRST_BACKOFF, MAX_BACKOFF);
  private final Object lock = new Object();
  private int failures;
  private long notBefore;

  public AlertOutbox(
      RetryStore store,
      AlertWebhook webhook,
      Fencing fencing,
      RetryMetrics metrics,
      String actor,
      LongSupplier nanos) {
    this.store = Objects.requireNonNull(store, "store");
    this.webhook = Objects.requireNonNull(webhook, "webhook");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    this.notBefore = nanos.getAsLong();
  }

  /**
   * Delivers up to {@link #BATCH} alerts, unless a failed delivery's backoff has not passed.
   *
   * @return the alerts delivered and stamped
   * @throws dev.carillon.election.NotLeaderException when this instance does not lead
   * @throws FencedException when another leader took over (reported to {@link Fencing#fenced})
   * @throws InterruptedException when the loop is being stopped
   */
  public int sendOnce() throws InterruptedException {
    synchronized (lock) {
      if (nanos.getAsLong() - notBefore < 0) {
        return 0;
      }
      Fence fence = fencing.fence();
      try {
        return send(fence);
      } catch (FencedException e) {
        fencing.fenced(e);
        throw e;
      }
    }
  }

  private int send(Fence fence) throws InterruptedException {
    List<DeadAlert> due = store.unalertedDead(BATCH);
    int sent = 0;
    for (DeadAlert a : due) {
      String body;
      try {
        body = DeadLetters.body(a);
      } catch (RuntimeException e) {
        if (store.quarantine(a.instance(), SCANNER, e.toString(), actor, fence)) {
          metrics.quarantined(SCANNER);
          log.error(
              "The alert of DEAD instance {} cannot be written and is quarantined: {}",
              a.instance().id(),
              e.toString());
        }
        continue;
      }
      AlertWebhook.Delivery d = webhook.deliver(body, a.idempotencyKey());
      if (!d.acknowledged()) {
        failed(a, d.failure());
        return sent;
      }
      store.markAlerted(a.instance().id(), fence);
      metrics.alertSent();
      sent++;
    }
    if (failures > 0) {
      log.info(
          "Alert webhook {} accepts alerts again after {} failed round(s)",
          webhook.shownUrl(),
          failures);
      failures = 0;
    }
    return sent;
  }

  private void failed(DeadAlert a, String why) {
    failures++;
    metrics.alertFailed();
    Duration wait = backoff.delay(failures - 1);
    notBefore = nanos.getAsLong() + wait.toNanos();
    if (Integer.bitCount(failures) == 1) {
      log.warn(
          "Alert webhook {} did not accept the alert of DEAD instance {} ({}; {} failed round(s) in"
              + " a row); it stays in the outbox, next try in {}",
          webhook.shownUrl(),
          a.instance().id(),
          why,
          failures,
          wait);
    }
  }
}
