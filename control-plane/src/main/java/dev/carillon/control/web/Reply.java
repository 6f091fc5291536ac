package dev.carillon.control.web;

import java.util.Map;

/**
 * What a route answers: a status, a body written as JSON (a wire record of {@code
 * dev.carillon.client.model}), and extra headers.
 */
public record Reply(int status, Object body, Map<String, String> headers) {
  public Reply {
    headers = Map.copyOf(headers);
  }

  /** 200 with {@code body}. */
  public static Reply ok(Object body) {
    return new Reply(200, body, Map.of());
  }

  /** 201 with {@code body}. */
  public static Reply created(Object body) {
    return new Reply(201, body, Map.of());
  }
}
