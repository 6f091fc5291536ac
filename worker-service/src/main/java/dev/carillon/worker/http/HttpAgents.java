package dev.carillon.worker.http;

import dev.carillon.api.AgentContext;
import dev.carillon.model.agent.HttpEndpoint;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.RunSpec;
import dev.carillon.spec.AgentParams;
import dev.carillon.store.Outcome;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.AgentKind;
import dev.carillon.worker.run.RunRecords;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * The {@code http} handler: each run POSTs its context to the endpoint of its task's {@code
 * params.http} (see {@link AgentParams}) as an {@link HttpExecution}. One HTTP client per worker,
 * with its connect timeout, shared by every run (its connections are reused); redirects are not
 * followed. Thread-safe.
 */
public final class HttpAgents implements AgentKind {
  /** How long a connection may take unless configured. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** The most bytes of a response body read unless configured. */
  public static final int DEFAULT_MAX_BODY_BYTES = 64 * 1024;

  private final HttpClient client;
  private final Map<String, String> workerEnv;
  private final int maxBodyBytes;
  private final int maxSummaryBytes;
  private final Clock clock;

  /**
   * @param connectTimeout how long a connection may take
   * @param workerEnv the worker's environment, where {@code tokenEnv} names a token
   * @param maxBodyBytes the most bytes of a response body read
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   * @param clock the worker's clock, for the time left before the run's deadline
   */
  public HttpAgents(
      Duration connectTimeout,
      Map<String, String> workerEnv,
      int maxBodyBytes,
      int maxSummaryBytes,
      Clock clock) {
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
    this.workerEnv = Map.copyOf(workerEnv);
    this.maxBodyBytes = maxBodyBytes;
    this.maxSummaryBytes = maxSummaryBytes;
    this.clock = clock;
  }

  @Override
  public AgentExecution execution(RunSpec spec, AgentContext context, RunRecords records) {
    HttpEndpoint endpoint;
    try {
      endpoint = AgentParams.http(spec.taskId(), spec.paramsJson());
    } catch (InvalidTaskException e) {
      return AgentExecution.ending(
          Outcome.failure(
              "the task's http settings are unusable: " + e.getMessage() + "; non-retryable",
              true));
    }
    String token = null;
    if (endpoint.tokenEnv().isPresent()) {
      token = workerEnv.get(endpoint.tokenEnv().get());
      if (token == null || token.isBlank()) {
        return AgentExecution.ending(
            Outcome.failure(
                "params.http.tokenEnv names "
                    + endpoint.tokenEnv().get()
                    + ", which is not set on this worker; retryable, since another worker may"
                    + " have it",
                false));
      }
    }
    return new HttpExecution(
        client, endpoint, token, context, records, maxBodyBytes, maxSummaryBytes, clock);
  }
}
