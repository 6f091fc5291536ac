package dev.carillon.worker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.model.agent.HttpEndpoint;
import dev.carillon.store.Outcome;
import dev.carillon.worker.exec.RunContext;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.Outcomes;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One run of an {@code http} agent: the run's context ({@link RunContext#json}) POSTed to the
 * task's endpoint, and the response turned into the outcome.
 *
 * <table>
 *   <caption>responses</caption>
 *   <tr><th>response</th><th>outcome</th></tr>
 *   <tr><td>2xx</td><td>SUCCESS; a JSON body {@code {"summary": "...", "uri": "..."}} gives the
 *       result, any other body is the summary</td></tr>
 *   <tr><td>408, 429</td><td>FAILED, retryable (the endpoint asks to be called later)</td></tr>
 *   <tr><td>other 4xx</td><td>FAILED, non-retryable (the request is wrong; a retry sends it
 *       again)</td></tr>
 *   <tr><td>5xx, no connection, no response in time</td><td>FAILED, retryable</td></tr>
 *   <tr><td>1xx, 3xx</td><td>FAILED, non-retryable (redirects are not followed)</td></tr>
 * </table>
 *
 * <p>The request carries {@code Idempotency-Key} (the run's {@code taskId/windowKey}), {@code
 * Carillon-Attempt} and {@code Carillon-Deadline}, and a bearer token when the task names one. It
 * waits at most until the run's deadline (or the task's {@code requestTimeout}, if sooner); a stop
 * cancels it. Failure reasons name the endpoint without its query, which may hold secrets.
 */
final class HttpExecution implements AgentExecution {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The most characters of a failed response's body in the reason. */
  private static final int REASON_BODY_CHARS = 300;

  private final HttpClient client;
  private final HttpEndpoint endpoint;
  private final String token;
  private final AgentContext context;
  private final int maxBodyBytes;
  private final int maxSummaryBytes;
  private final Clock clock;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  HttpExecution(
      HttpClient client,
      HttpEndpoint endpoint,
      String token,
      AgentContext context,
      int maxBodyBytes,
      int maxSummaryBytes,
      Clock clock) {
    this.client = client;
    this.endpoint = endpoint;
    this.token = token;
    this.context = context;
    this.maxBodyBytes = maxBodyBytes;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
  }

  @Override
  public void stop() {
    stopped.complete(null);
  }

  @Override
  public boolean endsWhenStopped() {
    return true;
  }

  @Override
  public Outcome execute() {
    Duration left = Duration.between(clock.instant(), context.deadline());
    Duration timeout = endpoint.requestTimeout().filter(t -> t.compareTo(left) < 0).orElse(left);
    if (stopped.isDone() || timeout.compareTo(Duration.ofMillis(1)) < 0) {
      return Outcome.failure("stopped before the request was sent", false);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint.url())
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Idempotency-Key", context.idempotencyKey())
            .header("Carillon-Attempt", Integer.toString(context.attempt()))
            .header("Carillon-Deadline", context.deadline().toString())
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    RunContext.json(context), StandardCharsets.UTF_8));
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    // The run's trace continues in the endpoint's spans.
    context.traceparent().ifPresent(t -> request.header("traceparent", t));
    CompletableFuture<HttpResponse<BoundedBody.Body>> response =
        client.sendAsync(request.build(), info -> new BoundedBody(maxBodyBytes));
    stopped.thenRun(() -> response.cancel(true));
    try {
      return outcome(response.get());
    } catch (CancellationException e) {
      return Outcome.failure("stopped", false);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      response.cancel(true);
      return Outcome.failure("interrupted", false);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof HttpTimeoutException) {
        return Outcome.failure(
            "no response from " + where() + " within " + timeout + "; retryable", false);
      }
      if (stopped.isDone()) {
        return Outcome.failure("stopped", false);
      }
      return Outcome.failure(
          "cannot reach "
              + where()
              + ": "
              + cause.getClass().getSimpleName()
              + (cause.getMessage() == null ? "" : " " + cause.getMessage())
              + "; retryable",
          false);
    }
  }

  private Outcome outcome(HttpResponse<BoundedBody.Body> response) {
    int status = response.statusCode();
    String body = new String(response.body().bytes(), StandardCharsets.UTF_8);
    if (status >= 200 && status < 300) {
      return success(body, response.body().cut());
    }
    boolean retryable = status == 408 || status == 429 || status >= 500;
    String head =
        body.strip().length() <= REASON_BODY_CHARS
            ? body.strip()
            : body.strip().substring(0, REASON_BODY_CHARS) + "...";
    return Outcome.failure(
        "HTTP "
            + status
            + " from "
            + where()
            + (retryable ? " (retryable)" : " (non-retryable)")
            + (head.isEmpty() ? "" : ": " + head),
        !retryable);
  }

  private Outcome success(String body, boolean cut) {
    String summary = body;
    String uri = null;
    if (!cut && body.strip().startsWith("{")) {
      try {
        JsonNode node = JSON.readTree(body);
        if (node.isObject() && (node.has("summary") || node.has("uri"))) {
          JsonNode s = node.get("summary");
          JsonNode u = node.get("uri");
          summary = s == null || s.isNull() ? "" : s.isTextual() ? s.textValue() : s.toString();
          uri = u == null || u.isNull() ? null : u.asText();
        }
      } catch (IOException e) {
        // Not JSON after all: the body is the summary.
      }
    }
    try {
      return Outcomes.success(
          new AgentResult(summary, uri == null ? null : new URI(uri)), maxSummaryBytes);
    } catch (Exception e) {
      return Outcome.failure(
          "HTTP 2xx from " + where() + ", but its uri is not an absolute URI: " + e.getMessage(),
          false);
    }
  }

  /** The endpoint without its query and fragment, which may hold secrets. */
  private String where() {
    URI u = endpoint.url();
    return u.getScheme() + "://" + u.getAuthority() + (u.getPath() == null ? "" : u.getPath());
  }
}
