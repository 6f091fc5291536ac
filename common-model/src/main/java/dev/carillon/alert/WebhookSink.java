package dev.carillon.alert;

import dev.carillon.model.retry.ExponentialBackoff;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends alerts as an HTTP POST of their JSON body ({@link Alert#json()}) to one webhook, on its own
 * thread, so a slow or dead webhook never blocks the loop that raised them. A failed call (an
 * exception or a non-2xx answer) is tried again after {@code firstBackoff}, doubling, at most
 * {@link #MAX_BACKOFF} apart, up to {@code maxAttempts} calls in all; then the alert is given up
 * with an ERROR line (what it was about was already logged where it was raised). At most {@link
 * #MAX_QUEUED} alerts wait; beyond that new ones are dropped with a WARN.
 *
 * <p>The URL is never logged in full: its path often holds the webhook's secret ({@link #maskUrl}).
 *
 * <p>Meters: {@code carillon.alerts.webhook{kind, result}}, {@code result} = {@code sent}, {@code
 * failed} (given up after retries) or {@code dropped} (too many waiting, or closed).
 *
 * <p>Thread-safe. {@link #close()} stops at once; alerts still waiting are dropped.
 */
public final class WebhookSink implements AlertSink {
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

  private static final Logger log = LoggerFactory.getLogger(WebhookSink.class);

  private final URI url;
  private final String shownUrl;
  private final HttpClient client;
  private final int maxAttempts;
  private final ExponentialBackoff backoff;
  private final MeterRegistry registry;
  private final ScheduledExecutorService executor;
  private final AtomicInteger queued = new AtomicInteger();

  /**
   * @param url where to POST
   * @param maxAttempts calls per alert, at least 1
   * @param firstBackoff pause before the second call, at least 1 ms; doubles after each failure, up
   *     to {@link #MAX_BACKOFF}
   * @param threadName the name of the sending thread, e.g. {@code retry-alert-webhook}
   * @param registry where deliveries are counted
   */
  public WebhookSink(
      URI url, int maxAttempts, Duration firstBackoff, String threadName, MeterRegistry registry) {
    this.url = Objects.requireNonNull(url, "url");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
    }
    this.shownUrl = maskUrl(url.toString());
    this.maxAttempts = maxAttempts;
    Objects.requireNonNull(firstBackoff, "firstBackoff");
    this.backoff =
        ExponentialBackoff.doubling(
            firstBackoff, firstBackoff.compareTo(MAX_BACKOFF) > 0 ? firstBackoff : MAX_BACKOFF);
    this.registry = Objects.requireNonNull(registry, "registry");
    for (AlertKind k : AlertKind.values()) {
      for (String result : new String[] {"sent", "failed", "dropped"}) {
        counter(k, result);
      }
    }
    this.client = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
    ScheduledThreadPoolExecutor ex =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
    ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.executor = ex;
  }

  @Override
  public CompletableFuture<Boolean> send(Alert alert) {
    CompletableFuture<Boolean> done = new CompletableFuture<>();
    if (queued.incrementAndGet() > MAX_QUEUED) {
      queued.decrementAndGet();
      log.warn("Alert webhook {} has {} alerts waiting; dropping one", shownUrl, MAX_QUEUED);
      counter(alert.kind(), "dropped").increment();
      done.complete(false);
      return done;
    }
    String json = alert.json();
    try {
      executor.execute(() -> attempt(alert, json, 1, done));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queued.decrementAndGet();
      counter(alert.kind(), "dropped").increment();
      done.complete(false);
    }
    return done;
  }

  private void attempt(Alert alert, String json, int n, CompletableFuture<Boolean> done) {
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
        counter(alert.kind(), "sent").increment();
        done.complete(true);
        return;
      }
      failure = "HTTP " + response.statusCode();
    } catch (java.io.IOException e) {
      failure = e.toString();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      queued.decrementAndGet();
      done.complete(false);
      return;
    }
    if (n >= maxAttempts) {
      queued.decrementAndGet();
      counter(alert.kind(), "failed").increment();
      log.error(
          "Alert webhook {} failed {} times, giving up this {} alert; last failure: {}",
          shownUrl,
          n,
          alert.kind().event(),
          failure);
      done.complete(false);
      return;
    }
    Duration wait = backoff.delay(n - 1);
    log.warn("Alert webhook {} failed ({}); call {} in {}", shownUrl, failure, n + 1, wait);
    try {
      executor.schedule(
          () -> attempt(alert, json, n + 1, done), wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      queued.decrementAndGet();
      done.complete(false);
    }
  }

  private Counter counter(AlertKind kind, String result) {
    return Counter.builder("carillon.alerts.webhook")
        .description("alerts handed to the webhook, by kind and result (sent, failed, dropped)")
        .tag("kind", kind.label())
        .tag("result", result)
        .register(registry);
  }

  /** Alerts waiting or in flight. */
  public int pending() {
    return queued.get();
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }

  @Override
  public String toString() {
    return "webhook " + shownUrl;
  }

  /**
   * A webhook URL safe to log: scheme, host and port only. Webhook paths and queries often carry
   * the secret (Slack, Teams), so they are never printed.
   */
  public static String maskUrl(String url) {
    try {
      URI u = new URI(url);
      if (u.getScheme() == null || u.getHost() == null) {
        return "****";
      }
      return u.getScheme()
          + "://"
          + u.getHost()
          + (u.getPort() < 0 ? "" : ":" + u.getPort())
          + "/****";
    } catch (URISyntaxException e) {
      return "****";
    }
  }
}
