package dev.carillon.client;

import dev.carillon.api.Stability;

/**
 * The API could not be reached, did not answer within the request timeout, or answered something
 * that is not the API (a body that cannot be read). Whether the request took effect is unknown: a
 * run-now sent again with the same idempotency key is safe.
 */
@Stability.Evolving
public final class CarillonUnreachableException extends CarillonException {
  private static final long serialVersionUID = 1L;

  /** An exception naming what failed, with its cause. */
  public CarillonUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }
}
