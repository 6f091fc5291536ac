package dev.carillon.control.web;

import dev.carillon.client.model.FieldProblem;
import dev.carillon.model.CarillonException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpStatus;

/**
 * A request the API refuses, answered as {@code application/problem+json}: its status, a sentence,
 * and every field at fault with its value. Thrown before anything is written, so a 4xx never leaves
 * a change behind.
 */
public final class ApiException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient List<FieldProblem> problems;
  private final transient Map<String, String> headers;

  private ApiException(
      int status, String detail, List<FieldProblem> problems, Map<String, String> headers) {
    super(detail);
    this.status = status;
    this.problems = List.copyOf(problems);
    this.headers = Map.copyOf(headers);
  }

  /** A refusal with {@code status}, naming each field at fault. */
  public static ApiException of(int status, String detail, List<FieldProblem> problems) {
    return new ApiException(status, detail, problems, Map.of());
  }

  /** 400: one field at fault. */
  public static ApiException badRequest(String field, Object value, String message) {
    return of(
        HttpStatus.BAD_REQUEST_400,
        field + (value == null ? "" : " '" + value + "'") + " " + message,
        List.of(FieldProblem.of(field, value, message)));
  }

  /** 400: several fields at fault. */
  public static ApiException badRequest(List<FieldProblem> problems) {
    return of(
        HttpStatus.BAD_REQUEST_400,
        problems.size() == 1
            ? describe(problems.get(0))
            : problems.size() + " problems: " + describe(problems.get(0)) + "; ...",
        problems);
  }

  /** 404: the thing a path names does not exist. */
  public static ApiException notFound(String field, Object value, String message) {
    return of(
        HttpStatus.NOT_FOUND_404,
        field + " '" + value + "' " + message,
        List.of(FieldProblem.of(field, value, message)));
  }

  /** 409: the state of what a path names does not allow the change. */
  public static ApiException conflict(String field, Object value, String message) {
    return of(
        HttpStatus.CONFLICT_409,
        field + " '" + value + "' " + message,
        List.of(FieldProblem.of(field, value, message)));
  }

  /** The same refusal with one more response header (Allow, Retry-After, WWW-Authenticate). */
  public ApiException withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new ApiException(status, getMessage(), problems, h);
  }

  private static String describe(FieldProblem p) {
    return p.field() + (p.value() == null ? "" : " '" + p.value() + "'") + " " + p.message();
  }

  public int status() {
    return status;
  }

  public List<FieldProblem> problems() {
    return problems;
  }

  public Map<String, String> headers() {
    return headers;
  }
}
