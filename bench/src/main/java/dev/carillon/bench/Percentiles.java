package dev.carillon.bench;

import java.util.Arrays;

/** Nearest-rank percentiles and medians; pure functions for the report. */
public final class Percentiles {
  private Percentiles() {}

  /**
   * The nearest-rank {@code p}-th percentile (0 < p <= 100) of {@code values}: the smallest value
   * such that at least p% of the values are less than or equal to it. NaN for no values.
   */
  public static double of(double[] values, double p) {
    if (p <= 0 || p > 100) {
      throw new IllegalArgumentException("p must be in (0, 100], was " + p);
    }
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /** The median (mean of the middle two for an even count). NaN for no values. */
  public static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
}
