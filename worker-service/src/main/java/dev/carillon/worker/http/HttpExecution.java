package dev.carillon.worker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.RunCancelledException;
import dev.carillon.model.agent.HttpEndpoint;
import dev.carillon.store.Outcome;
import dev.carillon.worker.exec.RunContext;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.Outcomes;
import dev.carillon.worker.run.RunRecords;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>The request body is the run's context with what earlier attempts left ({@code resume}: the
 * last checkpoint and the effects recorded so far, see {@link RunContext}). A JSON object in the
 * response, whatever its status, may carry {@code "checkpoint": {...}} and {@code "effects":
 * [{"key": "post", "result": "msg-17"}, ...]}: they are recorded, fenced like a plugin's, before
 * the outcome, so a 503 after half the work can leave a checkpoint for the retry. An endpoint
 * reports an effect only once it is done; it cannot report the start, so an effect whose response
 * was lost is not even known to be in doubt: pass {@code Idempotency-Key} plus {@code "/" + key} to
 * whatever the effect calls.
 *
 * <p>The request carries {@code Idempotency-Key} (the run's {@code taskId/windowKey}), {@code
 * Carillon-Attempt} and {@code Carillon-Deadline}, and a bearer token when the task names one. It
 * waits at most until the run's deadline (or the task's {@code requestTimeout}, if sooner); a stop
 * cancels it. Failure reasons name the endpoint without its query, which may hold secrets.
 */
final class HttpExecution implements AgentExecution {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Logger log = LoggerFactory.getLogger(HttpExecution.class);

  /** The most characters of a failed response's body in the reason. */
  private static final int REASON_BODY_CHARS = 300;

  private final HttpClient client;
  private final HttpEndpoint endpoint;
  private final String token;
  private final AgentContext context;
  private final RunRecords records;
  private final int maxBodyBytes;
  private final int maxSummaryBytes;
  private final Clock clock;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();

  HttpExecution(
      HttpClient client,
      HttpEndpoint endpoint,
      String token,
      AgentContext context,
      RunRecords records,
      int maxBodyBytes,
      int maxSummaryBytes,
      Clock clock) {
    this.client = client;
    this.endpoint = endpoint;
    this.token = token;
    this.context = context;
    this.records = records;
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
    String body;
    try {
      body = RunContext.json(context, RunContext.resume(context, records));
    } catch (UncheckedIOException e) {
      return Outcome.failure(
          "cannot read the run's checkpoints and effects: " + e.getMessage() + "; retryable",
          false);
    }
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint.url())
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .header("Idempotency-Key", context.idempotencyKey())
            .header("Carillon-Attempt", Integer.toString(context.attempt()))
            .header("Carillon-Deadline", context.deadline().toString())
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
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
    JsonNode json = response.body().cut() ? null : object(body);
    if (json != null && !recordResume(json)) {
      return Outcome.failure("stopped: a checkpoint or effect it returned was refused", false);
    }
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
        if (node.isObject()
            && (node.has("summary")
                || node.has("uri")
                || node.has("checkpoint")
                || node.has("effects"))) {
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

  /** {@code body} as a JSON object, or {@code null} when it is not one. */
  private static JsonNode object(String body) {
    if (!body.strip().startsWith("{")) {
      return null;
    }
    try {
      JsonNode node = JSON.readTree(body);
      return node != null && node.isObject() ? node : null;
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Records the response's {@code checkpoint} and {@code effects}, in that order. What the rules
   * refuse (a state that is not an object or too large, a bad key) is logged and skipped.
   *
   * @return {@code false} when a write was refused because the run no longer holds its instance
   *     (the run is then stopped)
   */
  private boolean recordResume(JsonNode json) {
    try {
      JsonNode checkpoint = json.get("checkpoint");
      if (checkpoint != null && !checkpoint.isNull()) {
        if (checkpoint.isObject()) {
          records.checkpoint(checkpoint.toString());
        } else {
          skipped("its \"checkpoint\" is not a JSON object");
        }
      }
      JsonNode effects = json.get("effects");
      if (effects != null && !effects.isNull()) {
        if (!effects.isArray()) {
          skipped("its \"effects\" is not an array");
          return true;
        }
        for (JsonNode e : effects) {
          JsonNode key = e.get("key");
          JsonNode result = e.get("result");
          if (key == null || !key.isTextual()) {
            skipped("an effect without \"key\" as text: " + e);
            continue;
          }
          records.effectDone(
              key.textValue(),
              result == null || result.isNull()
                  ? null
                  : result.isTextual() ? result.textValue() : result.toString());
        }
      }
      return true;
    } catch (RunCancelledException e) {
      return false;
    } catch (IllegalArgumentException | UncheckedIOException e) {
      skipped(e.getMessage());
      return true;
    }
  }

  private void skipped(String why) {
    log.warn(
        "{}/{} attempt {}: the response of {} was not fully recorded: {}",
        context.taskId(),
        context.windowKey(),
        context.attempt(),
        where(),
        why);
  }

  /** The endpoint without its query and fragment, which may hold secrets. */
  private String where() {
    URI u = endpoint.url();
    return u.getScheme() + "://" + u.getAuthority() + (u.getPath() == null ? "" : u.getPath());
  }
}
