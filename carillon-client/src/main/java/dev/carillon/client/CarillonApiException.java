package dev.carillon.client;

import dev.carillon.api.Stability;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.Problem;
import java.util.List;
import java.util.Optional;

/**
 * The API answered with an error ({@code application/problem+json}). A 4xx means the request was
 * refused and <b>nothing was changed</b>; {@link #problem()} names each field and value at fault. A
 * 5xx means the server failed (a 503 names the database or Kafka that did not answer).
 */
@Stability.Evolving
public final class CarillonApiException extends CarillonException {
  private static final long serialVersionUID = 1L;

  private final transient Problem problem;
  private final String method;
  private final String path;

  /**
   * @param method the request's HTTP method
   * @param path the request's path and query
   * @param problem what the server answered (a body that was not problem+json is carried as its
   *     detail)
   */
  public CarillonApiException(String method, String path, Problem problem) {
    super(method + " " + path + " answered " + problem.status() + ": " + text(problem), null);
    this.problem = problem;
    this.method = method;
    this.path = path;
  }

  private static String text(Problem p) {
    return p.detail() != null ? p.detail() : String.valueOf(p.title());
  }

  /** The HTTP status, e.g. 400, 404, 409, 503. */
  public int status() {
    return problem.status();
  }

  /** The whole problem the server answered. */
  public Problem problem() {
    return problem;
  }

  /** Each field at fault; empty for errors about no field (401, 429, 5xx). */
  public List<FieldProblem> problems() {
    return problem.problems();
  }

  /** The first field at fault, e.g. {@code schedule.cron} or {@code Idempotency-Key}. */
  public Optional<String> field() {
    return problems().stream().map(FieldProblem::field).findFirst();
  }

  /** The first rejected value, as text. */
  public Optional<String> value() {
    return problems().stream().map(FieldProblem::value).filter(v -> v != null).findFirst();
  }

  /** The request's HTTP method. */
  public String method() {
    return method;
  }

  /** The request's path and query. */
  public String path() {
    return path;
  }

  /** Whether the request was at fault (4xx): sending it again unchanged will fail again. */
  public boolean isClientError() {
    return status() >= 400 && status() < 500;
  }
}
