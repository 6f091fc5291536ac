package dev.carillon.client;

import dev.carillon.api.Stability;

/**
 * Something a {@link CarillonClient} call could not do. Unchecked; the subclasses say why: the API
 * refused the request ({@link CarillonApiException}, with the problem it named), could not be
 * reached or answered nothing usable in time ({@link CarillonUnreachableException}), or an instance
 * did not finish before a deadline ({@link CarillonTimeoutException}).
 */
@Stability.Evolving
public class CarillonException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message and an optional cause. */
  public CarillonException(String message, Throwable cause) {
    super(message, cause);
  }
}
