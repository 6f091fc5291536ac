package dev.carillon.retry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failure streak of each scanner, so that a scanner that fails pass after pass (the database
 * down) is logged on its first failure with the stack trace, then once at the 2nd, 4th, 8th...
 * failure in a row, and once more when it works again: never a line per pass.
 *
 * <p>Thread-safe.
 */
final class ScannerFailures {
  private static final Logger log = LoggerFactory.getLogger(ScannerFailures.class);

  private final Map<String, Integer> streaks = new ConcurrentHashMap<>();

  void failed(String scanner, RuntimeException e) {
    int n = streaks.merge(scanner, 1, Integer::sum);
    if (n == 1) {
      log.error(
          "The {} scanner failed; the other scanners go on, and it is tried again next pass",
          scanner,
          e);
    } else if (Integer.bitCount(n) == 1) {
      log.warn("The {} scanner failed again ({} passes in a row): {}", scanner, n, e.toString());
    }
  }

  void succeeded(String scanner) {
    Integer n = streaks.remove(scanner);
    if (n != null) {
      log.info("The {} scanner works again after {} failed pass(es)", scanner, n);
    }
  }

  /** Whether {@code scanner} failed on its last pass. */
  boolean failing(String scanner) {
    return streaks.containsKey(scanner);
  }
}
