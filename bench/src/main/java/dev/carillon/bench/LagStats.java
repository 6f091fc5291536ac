package dev.carillon.bench;

/**
 * Fire lag of one run, in milliseconds: the scheduled instant to the job's start.
 *
 * @param count fires the figures are computed over
 */
public record LagStats(long count, double p50, double p95, double p99, double max) {
  public static final LagStats NONE =
      new LagStats(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);

  public static LagStats of(double[] lagsMillis) {
    if (lagsMillis.length == 0) {
      return NONE;
    }
    return new LagStats(
        lagsMillis.length,
        Percentiles.of(lagsMillis, 50),
        Percentiles.of(lagsMillis, 95),
        Percentiles.of(lagsMillis, 99),
        Percentiles.of(lagsMillis, 100));
  }
}
