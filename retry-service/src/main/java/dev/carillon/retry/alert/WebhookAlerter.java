package dev.carillon.retry.alert;

import dev.carillon.model.retry.ExponentialBackoff;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.retry.RetrySettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends alerts as an HTTP POST of a JSON body to one webhook, on its own thread, so a slow or dead
 * webhook never blocks scanning. A failed call (an exception or a non-2xx answer) is tried again
 * after {@code firstBackoff}, doubling, at most {@link #MAX_BACKOFF} apart, up to {@code
 * maxAttempts} calls in all; then the alert is given up with an ERROR line (the DEAD instance
 * itself was already logged). At most {@link #MAX_QUEUED} alerts wait; beyond that new ones are
 * dropped with a WARN.
 *
 * <p>The URL is never logged in full: its path often holds the webhook's secret.
 *
 * <p>Thread-safe. {@link #close()} stops at once; alerts still waiting are dropped.
 */
public final class WebhookAlerter implements AutoCloseable {
  /** Alerts allowed to wait at once. */
  public static final int MAX_QUEUED = 1_000;

  /** Calls per alert unless told otherwise. */
  public static final int DEFAULT_MAX_ATTEMPTS = 4;

  /** First pause before a second call unless told otherwise. */
  public static final Duration DEFAULT_FIRST_BACKOFF = Duration.ofMillis(500);

  /** The longest pause between two calls (unless {@code firstBackoff} is longer). */
  public static final Duration MAX_BACKOFF = Duration.ofMinutes(1);

  /** Longest one call may take. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(WebhookAlerter.class);

  private final URI url;
  private final String shownUrl;
  private final HttpClient client;
  private final int maxAttempts;
  private final ExponentialBackoff backoff;
  private final RetryMetrics metrics;
  private final ScheduledExecutorService executor;
  private final AtomicInteger queued = new AtomicInteger();

  /**
   * @param url where to POST
   * @param maxAttempts calls per alert, at least 1
   * @param firstBackoff pause before the second call, at least 1 ms; doubles after each failure, up
   *     to {@link #MAX_BACKOFF}
   */
  public WebhookAlerter(URI url, int maxAttempts, Duration firstBackoff, RetryMetrics metrics) {
    this.url = Objects.requireNonNull(url, "url");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    this.shownUrl = RetrySettings.maskUrl(url.toString());
    this.maxAttempts = maxAttempts;
    Objects.requireNonNull(firstBackoff, "firstBackoff");
    this.backoff =
        ExponentialBackoff.doubling(
            firstBackoff, firstBackoff.compareTo(MAX_BACKOFF) > 0 ? firstBackoff : MAX_BACKOFF);
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.client = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
    ScheduledThreadPoolExecutor ex =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "retry-alert-webhook");
              t.setDaemon(true);
              return t;
            });
    ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = ex;
  }

  /**
   * Queues one alert and returns at once.
   *
   * @return false when the queue is full or the alerter is closed (the alert is dropped)
   */
  public boolean submit(String json) {
    if (queued.incrementAndGet() > MAX_QUEUED) {
      queued.decrementAndGet();
      log.warn("Alert webhook {} has {} alerts waiting; dropping one", shownUrl, MAX_QUEUED);
      metrics.alertFailed();
      return false;
    }
    try {
      executor.execute(() -> attempt(json, 1));
      return true;
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queued.decrementAndGet();
      return false;
    }
  }

  private void attempt(String json, int n) {
    String failure;
    try {
      HttpResponse<Void> response =
          client.send(
              HttpRequest.newBuilder(url)
                  .timeout(REQUEST_TIMEOUT)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(json))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      if (response.statusCode() / 100 == 2) {
        queued.decrementAndGet();
        metrics.alertSent();
        return;
      }
      failure = "HTTP " + response.statusCode();
    } catch (java.io.IOException e) {
      failure = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      queued.decrementAndGet();
      return;
    }
    if (n >= maxAttempts) {
      queued.decrementAndGet();
      metrics.alertFailed();
      log.error(
          "Alert webhook {} failed {} times, giving up this alert; last failure: {}",
          shownUrl,
          n,
          failure);
      return;
    }
    Duration wait = backoff.delay(n - 1);
    log.warn("Alert webhook {} failed ({}); call {} in {}", shownUrl, failure, n + 1, wait);
    try {
      executor.schedule(() -> attempt(json, n + 1), wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queued.decrementAndGet();
    }
  }

  /** Alerts waiting or in flight. */
  public int pending() {
    return queued.get();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
