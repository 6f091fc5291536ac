package dev.carillon.retry.scan;

import dev.carillon.store.FencedException;
import org.jooq.exception.DataAccessException;

/**
 * Sorts a failure while handling one row into the row's own fault, which trying again cannot fix
 * (the row is quarantined), and trouble around it (the database down or slow, a deposed leader),
 * which ends the scanner's round and is tried again on the next pass.
 */
final class RowFailure {
  private RowFailure() {}

  /**
   * Whether {@code e} is the row's own fault: anything but a database error, or a database error
   * about the data itself (SQLSTATE class 22, data exception, or 23, integrity constraint
   * violation). Connection failures, timeouts, cancellations, deadlocks and the like are not: the
   * same row succeeds once they pass.
   */
  static boolean isTheRows(RuntimeException e) {
    if (e instanceof FencedException) {
      return false;
    }
    if (e instanceof DataAccessException dae) {
      String state = dae.sqlState();
      return state != null && (state.startsWith("22") || state.startsWith("23"));
    }
    return true;
  }

  /** One line for the event log: the exception's class and message. */
  static String describe(RuntimeException e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m.strip());
  }
}
