package dev.carillon.bench;

/**
 * What the API clients of one run saw. Latency is from sending a request to having its whole body,
 * in milliseconds, over the requests that got an answer (any status).
 *
 * @param requests requests sent
 * @param ok answered 200
 * @param limited answered 429 (the per-token rate limit)
 * @param otherStatus answered anything else
 * @param errors no answer (IO error or the request timeout)
 * @param seconds how long the clients ran
 */
public record ApiStats(
    long requests,
    long ok,
    long limited,
    long otherStatus,
    long errors,
    double seconds,
    double p50,
    double p95,
    double p99,
    double max) {

  /** Answered requests per second, over all clients. */
  public double perSecond() {
    return seconds <= 0 ? Double.NaN : (requests - errors) / seconds;
  }

  /** Requests not answered 200. */
  public long failed() {
    return limited + otherStatus + errors;
  }

  static ApiStats of(
      double[] latenciesMillis,
      long requests,
      long ok,
      long limited,
      long otherStatus,
      long errors,
      double seconds) {
    return new ApiStats(
        requests,
        ok,
        limited,
        otherStatus,
        errors,
        seconds,
        Percentiles.of(latenciesMillis, 50),
        Percentiles.of(latenciesMillis, 95),
        Percentiles.of(latenciesMillis, 99),
        Percentiles.of(latenciesMillis, 100));
  }
}
