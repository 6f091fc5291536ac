package dev.carillon.bench;

/**
 * A benchmark run that cannot go on: bad options, a system that did not start, a lead too short.
 */
public class BenchException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BenchException(String message) {
    super(message);
  }

  public BenchException(String message, Throwable cause) {
    super(message, cause);
  }
}
