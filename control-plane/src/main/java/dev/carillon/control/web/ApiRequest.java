package dev.carillon.control.web;

import dev.carillon.auth.Principal;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * One request as a route sees it: who called (already authenticated and allowed), the path
 * parameters, the query parameters, the headers and the body (already read, within the limit).
 */
public final class ApiRequest {
  private final Principal principal;
  private final Map<String, String> pathParams;
  private final QueryParams query;
  private final Function<String, String> headers;
  private final byte[] body;

  /**
   * @param headers looks a header up by name (any case); null when absent
   * @param body the body's bytes, empty when none was sent
   */
  public ApiRequest(
      Principal principal,
      Map<String, String> pathParams,
      QueryParams query,
      Function<String, String> headers,
      byte[] body) {
    this.principal = principal;
    this.pathParams = Map.copyOf(pathParams);
    this.query = query;
    this.headers = headers;
    this.body = body;
  }

  public Principal principal() {
    return principal;
  }

  /** The actor recorded in the histories for a change made by this request. */
  public String actor() {
    return principal.actor();
  }

  /** The value of path parameter {@code name} (the route's template names it). */
  public String path(String name) {
    String v = pathParams.get(name);
    if (v == null) {
      throw new IllegalStateException("the route has no path parameter {" + name + "}");
    }
    return v;
  }

  public QueryParams query() {
    return query;
  }

  /** A header's value, if sent. */
  public Optional<String> header(String name) {
    return Optional.ofNullable(headers.apply(name));
  }

  /** Whether a body was sent. */
  public boolean hasBody() {
    return body.length > 0;
  }

  /** The body's bytes as sent (empty when none was), for routes whose body is free JSON. */
  public byte[] rawBody() {
    return body.clone();
  }

  /** The body read as {@code type}, or empty when none was sent. */
  public <T> Optional<T> body(Class<T> type) {
    return hasBody() ? Optional.of(JsonBodies.read(body, type)) : Optional.empty();
  }

  /**
   * @throws ApiException 400 when no body was sent, or naming what is wrong with it
   */
  public <T> T requireBody(Class<T> type) {
    if (!hasBody()) {
      throw ApiException.badRequest("body", null, "is required: a JSON object");
    }
    return JsonBodies.read(body, type);
  }
}
