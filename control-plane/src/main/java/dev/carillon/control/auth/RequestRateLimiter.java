package dev.carillon.control.auth;

import dev.carillon.client.model.FieldProblem;
import dev.carillon.control.web.ApiException;
import dev.carillon.model.ratelimit.TokenBucket;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-token request rate: a {@link TokenBucket} (the one shared bucket) per token ({@code
 * api.rate.per-second}, {@code api.rate.burst}); a request beyond it is answered 429 with {@code
 * Retry-After}. The number of buckets is bounded by the tokens file (one per token, or one in an
 * insecure local setup). Thread-safe.
 */
public final class RequestRateLimiter {
  private final double perSecond;
  private final int burst;
  private final Clock clock;
  private final Map<String, TokenBucket> buckets = new ConcurrentHashMap<>();

  public RequestRateLimiter(double perSecond, int burst, Clock clock) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.clock = clock;
  }

  /**
   * Counts one request of {@code caller}.
   *
   * @throws ApiException 429 with {@code Retry-After} (whole seconds) when its bucket is empty
   */
  public void admit(Authenticator.Caller caller) {
    TokenBucket bucket =
        buckets.computeIfAbsent(
            caller.rateKey(), k -> new TokenBucket(perSecond, burst, clock.instant()));
    synchronized (bucket) {
      if (bucket.tryTake(clock.instant())) {
        return;
      }
    }
    // An empty bucket holds less than one token, so one is back within 1 / rate seconds.
    long seconds = Math.max(1, (long) Math.ceil(1.0 / perSecond));
    String principal = caller.principal().name();
    throw ApiException.of(
            429,
            "too many requests for the token of "
                + principal
                + ": at most "
                + perSecond
                + " per second (bursts of "
                + burst
                + "); retry in "
                + seconds
                + " s",
            List.of(
                FieldProblem.of(
                    "Authorization",
                    "token of " + principal,
                    "is over its rate of " + perSecond + " requests per second")))
        .withHeader("Retry-After", Long.toString(seconds));
  }
}
