package dev.carillon.logging;

/** Short, readable reasons from exceptions, for log lines and operator-facing errors. */
public final class Causes {
  private Causes() {}

  /**
   * The message of the innermost cause: "Connection refused" rather than a wrapper's prose; the
   * outer message when the innermost has none, else the innermost's class name.
   */
  public static String rootMessage(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String m = root.getMessage();
    if (m == null || m.isBlank()) {
      m = t.getMessage();
    }
    return m == null || m.isBlank() ? root.getClass().getSimpleName() : m.strip();
  }
}
