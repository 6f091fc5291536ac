package dev.carillon.bench;

import java.util.List;
import java.util.Locale;

/** The median and range of one figure over the repeats. */
public record Summary(double median, double min, double max, int runs) {

  public static Summary of(List<Double> values) {
    double[] v = values.stream().filter(d -> !d.isNaN()).mapToDouble(Double::doubleValue).toArray();
    if (v.length == 0) {
      return new Summary(Double.NaN, Double.NaN, Double.NaN, 0);
    }
    return new Summary(
        Percentiles.median(v), Percentiles.of(v, 0.0001), Percentiles.of(v, 100), v.length);
  }

  /** {@code median [min–max]} with {@code decimals} places; a single run shows its value. */
  public String format(int decimals) {
    if (runs == 0) {
      return "n/a";
    }
    String f = "%,." + decimals + "f";
    String m = String.format(Locale.ROOT, f, median);
    if (runs == 1 || min == max) {
      return m;
    }
    return m
        + " ["
        + String.format(Locale.ROOT, f, min)
        + "–"
        + String.format(Locale.ROOT, f, max)
        + "]";
  }
}
