package dev.carillon.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.api.Stability;
import dev.carillon.client.model.ApplyResult;
import dev.carillon.client.model.BackfillRequest;
import dev.carillon.client.model.BackfillResult;
import dev.carillon.client.model.ConfigChange;
import dev.carillon.client.model.ConfigKeyView;
import dev.carillon.client.model.ConfigView;
import dev.carillon.client.model.DeleteResult;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.InstanceChange;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.NextFiresView;
import dev.carillon.client.model.Page;
import dev.carillon.client.model.Problem;
import dev.carillon.client.model.RerunDeadRequest;
import dev.carillon.client.model.RerunDeadResult;
import dev.carillon.client.model.RetryPlanRequest;
import dev.carillon.client.model.RetryPlanView;
import dev.carillon.client.model.RunResult;
import dev.carillon.client.model.TaskStateView;
import dev.carillon.client.model.TaskView;
import dev.carillon.client.model.TimeoutSuggestionView;
import dev.carillon.client.model.Whoami;
import dev.carillon.client.model.WhyView;
import dev.carillon.client.model.WireJson;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The Java client of Carillon's HTTP API ({@code /api/v1}, docs/api.md): apply, read, pause, delete
 * and run tasks; list, follow, cancel and re-run instances; read and change the live configuration.
 * Built on the JDK's {@link HttpClient} and Jackson only.
 *
 * <pre>{@code
 * CarillonClient client = CarillonClient.fromEnvironment(); // CARILLON_API_URL, CARILLON_API_TOKEN
 * client.apply(TaskSpec.once("follow-up-42", "digest", Instant.now().plusSeconds(600)));
 * RunResult run = client.runNow("daily-digest", Map.of("user", "u-42"), "signup-u-42");
 * InstanceView done = client.awaitOutcome(run.instance().id(), Duration.ofMinutes(5));
 * }</pre>
 *
 * <p><b>Errors.</b> Every call either returns the server's answer or throws a {@link
 * CarillonException}: {@link CarillonApiException} when the API refused or failed the request (a
 * 4xx changed nothing and names the field and value at fault), {@link CarillonUnreachableException}
 * when it could not be reached or did not answer within the request timeout.
 *
 * <p><b>Timeouts.</b> Every request has one ({@link Builder#requestTimeout}, default {@value
 * #DEFAULT_REQUEST_TIMEOUT_SECONDS} s), and connecting has one ({@link Builder#connectTimeout},
 * default {@value #DEFAULT_CONNECT_TIMEOUT_SECONDS} s); nothing waits forever. The client does not
 * retry by itself: a run-now is safe to send again with the same idempotency key.
 *
 * <p>Thread-safe: one client may serve a whole application.
 */
@Stability.Evolving
public final class CarillonClient {
  /** The environment variable holding the API's base URL, e.g. {@code http://127.0.0.1:8080}. */
  public static final String ENV_URL = "CARILLON_API_URL";

  /** The environment variable holding the bearer token. */
  public static final String ENV_TOKEN = "CARILLON_API_TOKEN";

  /** Seconds to wait for a connection unless the builder says otherwise. */
  public static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

  /** Seconds to wait for one answer unless the builder says otherwise. */
  public static final int DEFAULT_REQUEST_TIMEOUT_SECONDS = 30;

  /** The statuses an instance never leaves by itself. */
  public static final Set<String> FINAL_STATUSES =
      Set.of("SUCCESS", "DEAD", "SKIPPED", "CANCELLED");

  private static final String API = "/api/v1";
  private static final String JSON_TYPE = "application/json";

  private final URI base;
  private final String token;
  private final HttpClient http;
  private final Duration requestTimeout;
  private final Duration pollInitial;
  private final Duration pollMax;
  private final ObjectMapper json = WireJson.client();

  private CarillonClient(Builder b) {
    this.base = b.baseUrl;
    this.token = b.token;
    this.requestTimeout = b.requestTimeout;
    this.pollInitial = b.pollInitial;
    this.pollMax = b.pollMax;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(b.connectTimeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** A builder with nothing set. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A client for the API named by {@value #ENV_URL}, authenticated by {@value #ENV_TOKEN}, with the
   * default timeouts.
   *
   * @throws IllegalArgumentException when {@value #ENV_URL} is not set or not an http(s) URL
   */
  public static CarillonClient fromEnvironment() {
    return builder().fromEnvironment(System.getenv()).build();
  }

  /** The API's base URL, e.g. {@code http://127.0.0.1:8080}. */
  public URI baseUrl() {
    return base;
  }

  // ---------------------------------------------------------------------------------------------
  // Tasks

  /**
   * Applies task specs, all or none: each is created, changed, or left unchanged (the answer says
   * which). A spec the server refuses fails the whole call with a 400 naming its field, and nothing
   * is applied.
   */
  public ApplyResult apply(TaskSpec... specs) {
    return apply(List.of(specs), false);
  }

  /**
   * Applies (or, with {@code dryRun}, only validates) task specs, all or none.
   *
   * @param specs the tasks
   * @param dryRun true to validate only
   */
  public ApplyResult apply(List<TaskSpec> specs, boolean dryRun) {
    ObjectNode body = json.createObjectNode();
    specs.forEach(s -> body.withArray("tasks").add(s.toJson()));
    if (specs.isEmpty()) {
      body.putArray("tasks");
    }
    return send(
        "POST",
        API + "/tasks:apply" + query("dryRun", dryRun ? "true" : null),
        body,
        ApplyResult.class);
  }

  /**
   * Applies the text of a YAML task file ({@code tasks: [...]}), all or none, exactly as {@code
   * schedctl apply -f} does; problems name the line and column.
   */
  public ApplyResult applyYaml(String yaml, boolean dryRun) {
    return exchange(
        "POST",
        API + "/tasks:apply" + query("dryRun", dryRun ? "true" : null),
        HttpRequest.BodyPublishers.ofString(yaml, StandardCharsets.UTF_8),
        "application/yaml",
        type(ApplyResult.class));
  }

  /** Creates or replaces one task from its spec. */
  public ApplyResult put(TaskSpec spec) {
    return send("PUT", API + "/tasks/" + segment(spec.id()), spec.toJson(), ApplyResult.class);
  }

  /**
   * One task with its next fire time and last outcome.
   *
   * @throws CarillonApiException 404 when there is no such task (or it was deleted)
   */
  public TaskView task(String id) {
    return get(API + "/tasks/" + segment(id), TaskView.class);
  }

  /**
   * One page of tasks, by id.
   *
   * @param paused only paused (true) or active (false) tasks; null for both
   * @param handler only tasks with this handler; null for any
   * @param limit tasks per page, 1..500
   * @param cursor the previous page's {@link Page#nextCursor()}, or null for the first page
   */
  public Page<TaskView> tasks(Boolean paused, String handler, int limit, String cursor) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("paused", paused == null ? null : paused.toString());
    q.put("handler", handler);
    q.put("limit", Integer.toString(limit));
    q.put("cursor", cursor);
    return exchange("GET", API + "/tasks" + query(q), null, null, pageOf(TaskView.class));
  }

  /** Every task, by id, fetched page by page as the stream is read. */
  public Stream<TaskView> allTasks() {
    return follow(cursor -> tasks(null, null, 100, cursor));
  }

  /**
   * Deletes a task (soft: it never fires again; its instances and history stay readable).
   *
   * @param cancelLive false refuses (409) while the task has live instances; true cancels them
   * @param reason recorded with the delete, or null
   */
  public DeleteResult delete(String id, boolean cancelLive, String reason) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("live", cancelLive ? "cancel" : "refuse");
    q.put("reason", reason);
    return exchange(
        "DELETE", API + "/tasks/" + segment(id) + query(q), null, null, type(DeleteResult.class));
  }

  /** Pauses a task: the trigger creates no windows for it until it is resumed. */
  public TaskStateView pause(String id) {
    return send("POST", API + "/tasks/" + segment(id) + "/pause", null, TaskStateView.class);
  }

  /** Resumes a paused task. */
  public TaskStateView resume(String id) {
    return send("POST", API + "/tasks/" + segment(id) + "/resume", null, TaskStateView.class);
  }

  /** The task's next {@code count} (1..1000) fire times, each in UTC and in its zone. */
  public NextFiresView next(String id, int count) {
    return get(
        API + "/tasks/" + segment(id) + "/next" + query("count", Integer.toString(count)),
        NextFiresView.class);
  }

  /**
   * The timeout the task's latest {@code window} (1..100000) successful runs suggest: their P99 x
   * 1.5, with the sample size and the task's timeout now.
   */
  public TimeoutSuggestionView suggestTimeout(String id, int window) {
    return get(
        API
            + "/tasks/"
            + segment(id)
            + "/suggest-timeout"
            + query("window", Integer.toString(window)),
        TimeoutSuggestionView.class);
  }

  /**
   * The fire times of an expression that is not saved, with the rules and messages of an apply.
   *
   * @param zone an IANA zone, or null for UTC
   * @param window a window kind, or null for {@code EVERY_FIRE}
   */
  public NextFiresView preview(String cron, String zone, String window, int count) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("cron", cron);
    q.put("zone", zone);
    q.put("window", window);
    q.put("count", Integer.toString(count));
    return get(API + "/next" + query(q), NextFiresView.class);
  }

  /** Runs a task now with its own params and no idempotency key: a new MANUAL instance. */
  public RunResult runNow(String id) {
    return runNow(id, null, null);
  }

  /**
   * Runs a task now: a MANUAL instance, published at once.
   *
   * @param params top-level fields that replace the task's params of the same name for this run, or
   *     null to run with the task's params
   * @param idempotencyKey with a key, the same key on the same task answers the same instance
   *     ({@link RunResult#created()} false), however often it is sent; null creates a new instance
   *     per call
   */
  public RunResult runNow(String id, Map<String, ?> params, String idempotencyKey) {
    ObjectNode body = null;
    if (params != null) {
      body = json.createObjectNode();
      body.set("params", json.valueToTree(params));
    }
    Map<String, String> headers =
        idempotencyKey == null ? Map.of() : Map.of("Idempotency-Key", idempotencyKey);
    return exchange(
        "POST",
        API + "/tasks/" + segment(id) + "/runs",
        body == null ? null : publisher(body),
        body == null ? null : JSON_TYPE,
        type(RunResult.class),
        headers);
  }

  /** Creates (or, in a dry run, lists) the missing windows of a past range of a cron task. */
  public BackfillResult backfill(String id, BackfillRequest request) {
    return send("POST", API + "/tasks/" + segment(id) + "/backfill", request, BackfillResult.class);
  }

  // ---------------------------------------------------------------------------------------------
  // Instances

  /** One instance. */
  public InstanceView instance(long id) {
    return get(API + "/instances/" + id, InstanceView.class);
  }

  /**
   * One page of instances, newest scheduled first.
   *
   * @param cursor the previous page's {@link Page#nextCursor()}, or null for the first page
   */
  public Page<InstanceView> instances(InstanceQuery q, String cursor) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("task", q.task());
    p.put("status", q.statuses().isEmpty() ? null : String.join(",", q.statuses()));
    p.put("origin", q.origins().isEmpty() ? null : String.join(",", q.origins()));
    p.put("from", q.from() == null ? null : q.from().toString());
    p.put("to", q.to() == null ? null : q.to().toString());
    p.put("limit", Integer.toString(q.pageSize()));
    p.put("cursor", cursor);
    return exchange("GET", API + "/instances" + query(p), null, null, pageOf(InstanceView.class));
  }

  /**
   * Every instance matching {@code q}, newest scheduled first, fetched a page at a time as the
   * stream is read (keyset pagination: rows created meanwhile neither shift nor repeat). Limit it
   * ({@code .limit(n)}) to read only the first {@code n}.
   */
  public Stream<InstanceView> listInstances(InstanceQuery q) {
    return follow(cursor -> instances(q, cursor));
  }

  /** Every DEAD instance (of {@code task}, or of every task when null), newest first. */
  public Stream<InstanceView> dead(String task) {
    return listInstances(InstanceQuery.all().withTask(task).withStatus("DEAD"));
  }

  /** The instance's history, oldest first. */
  public List<EventView> events(long id) {
    return exchange(
        "GET",
        API + "/instances/" + id + "/events",
        null,
        null,
        json.getTypeFactory().constructCollectionType(List.class, EventView.class));
  }

  /** Every decision about the instance's window, as {@code schedctl why} tells it. */
  public WhyView why(long id) {
    return get(API + "/instances/" + id + "/why", WhyView.class);
  }

  /**
   * Cancels an instance that has not finished.
   *
   * @throws CarillonApiException 409 naming the status when it has finished
   */
  public InstanceChange cancel(long id, String reason) {
    return send("POST", API + "/instances/" + id + "/cancel", reason(reason), InstanceChange.class);
  }

  /**
   * Runs a finished instance again, with a fresh retry budget.
   *
   * @throws CarillonApiException 409 naming the status when it is not finished
   */
  public InstanceChange rerun(long id, String reason) {
    return send("POST", API + "/instances/" + id + "/rerun", reason(reason), InstanceChange.class);
  }

  /** Re-runs (or, in a dry run, counts) DEAD instances by filter. */
  public RerunDeadResult rerunDead(RerunDeadRequest request) {
    return send("POST", API + "/instances:rerun-dead", request, RerunDeadResult.class);
  }

  /**
   * Waits until the instance reaches a status it never leaves by itself ({@link #FINAL_STATUSES}:
   * SUCCESS, DEAD, SKIPPED, CANCELLED), polling with a backoff that starts at {@link
   * Builder#pollBackoff}'s initial wait and doubles up to its maximum. FAILED and TIMEOUT are not
   * final: the retry service moves them on to RETRY_WAIT or DEAD.
   *
   * @param timeout how long to wait at most
   * @return the instance in its final status
   * @throws CarillonTimeoutException when it has not finished by then (it goes on)
   */
  public InstanceView awaitOutcome(long id, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Duration wait = pollInitial;
    while (true) {
      InstanceView seen = instance(id);
      if (FINAL_STATUSES.contains(seen.status())) {
        return seen;
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new CarillonTimeoutException(
            "instance " + id + " is still " + seen.status() + " after " + timeout, seen);
      }
      try {
        // The API has no push of status changes, so the client polls; the backoff keeps a long
        // wait cheap for the server and the deadline above bounds it.
        Thread.sleep(Math.max(1, Math.min(wait.toMillis(), left / 1_000_000)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CarillonException("interrupted while waiting for instance " + id, e);
      }
      wait = wait.multipliedBy(2).compareTo(pollMax) > 0 ? pollMax : wait.multipliedBy(2);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Config, retry plan, whoami

  /** Every config key's value in force and, apart, the records the retry service refuses. */
  public ConfigView config() {
    return get(API + "/config", ConfigView.class);
  }

  /**
   * One config key, e.g. {@code retry/daily-digest} or {@code ratelimit/global}: its value in force
   * (null when unset) and its refused records.
   */
  public ConfigKeyView config(String key) {
    return get(API + "/config/" + keyPath(key), ConfigKeyView.class);
  }

  /**
   * Sets a config key (admin role). The value is validated by the retry service's own rules; a
   * refused value is a 400 and nothing is sent.
   *
   * @param valueJson the value as JSON text, e.g. {@code {"policy":"IMMEDIATE","maxRetries":2}}
   */
  public ConfigChange setConfig(String key, String valueJson) {
    return exchange(
        "PUT",
        API + "/config/" + keyPath(key),
        HttpRequest.BodyPublishers.ofString(valueJson, StandardCharsets.UTF_8),
        JSON_TYPE,
        type(ConfigChange.class));
  }

  /** Unsets a config key (admin role): the services fall back to their defaults. */
  public ConfigChange unsetConfig(String key) {
    return send("DELETE", API + "/config/" + keyPath(key), null, ConfigChange.class);
  }

  /** How many exponential retries fit in a recovery time. */
  public RetryPlanView retryPlan(RetryPlanRequest request) {
    return send("POST", API + "/retry-plan", request, RetryPlanView.class);
  }

  /** Who the server takes this client for. */
  public Whoami whoami() {
    return get(API + "/whoami", Whoami.class);
  }

  // ---------------------------------------------------------------------------------------------
  // HTTP

  private ObjectNode reason(String reason) {
    if (reason == null) {
      return null;
    }
    ObjectNode n = json.createObjectNode();
    n.put("reason", reason);
    return n;
  }

  private <T> T get(String path, Class<T> type) {
    return exchange("GET", path, null, null, type(type));
  }

  private <T> T send(String method, String path, Object body, Class<T> type) {
    return exchange(
        method,
        path,
        body == null ? null : publisher(body),
        body == null ? null : JSON_TYPE,
        type(type));
  }

  private HttpRequest.BodyPublisher publisher(Object body) {
    try {
      return HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "cannot write the request body as JSON: " + e.getMessage(), e);
    }
  }

  private JavaType type(Class<?> c) {
    return json.getTypeFactory().constructType(c);
  }

  private JavaType pageOf(Class<?> item) {
    return json.getTypeFactory().constructParametricType(Page.class, item);
  }

  private <T> T exchange(
      String method,
      String path,
      HttpRequest.BodyPublisher body,
      String contentType,
      JavaType type) {
    return exchange(method, path, body, contentType, type, Map.of());
  }

  private <T> T exchange(
      String method,
      String path,
      HttpRequest.BodyPublisher body,
      String contentType,
      JavaType type,
      Map<String, String> headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(requestTimeout)
            .header("Accept", JSON_TYPE)
            .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : body);
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    headers.forEach(b::header);
    HttpResponse<byte[]> response;
    try {
      response = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpTimeoutException e) {
      throw new CarillonUnreachableException(
          method + " " + base.resolve(path) + " did not answer within " + requestTimeout, e);
    } catch (IOException e) {
      throw new CarillonUnreachableException(
          "cannot reach the Carillon API at " + base + ": " + describe(e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CarillonException(method + " " + path + " was interrupted", e);
    }
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      try {
        return json.readValue(response.body(), type);
      } catch (IOException e) {
        throw new CarillonUnreachableException(
            method
                + " "
                + path
                + " answered "
                + status
                + " with a body that is not a "
                + type.getRawClass().getSimpleName()
                + ": "
                + e.getMessage(),
            e);
      }
    }
    throw new CarillonApiException(method, path, problem(status, response.body()));
  }

  private static String describe(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getMessage() == null) {
      t = t.getCause();
    }
    return t.getMessage() == null
        ? t.getClass().getSimpleName()
        : t.getClass().getSimpleName() + ": " + t.getMessage();
  }

  private Problem problem(int status, byte[] body) {
    try {
      Problem p = json.readValue(body, Problem.class);
      if (p != null && p.status() == status) {
        return p;
      }
    } catch (IOException e) {
      // Not problem+json (a proxy's page, say): carry its text as the detail below.
    }
    String text = new String(body, StandardCharsets.UTF_8);
    return new Problem(
        "about:blank",
        "HTTP " + status,
        status,
        text.length() > 500 ? text.substring(0, 500) + "..." : text,
        List.of());
  }

  private static String segment(String s) {
    return URLEncoder.encode(Objects.requireNonNull(s, "id"), StandardCharsets.UTF_8)
        .replace("+", "%20");
  }

  /** A config key's two segments ({@code retry/daily-digest}), each encoded. */
  private static String keyPath(String key) {
    int slash = Objects.requireNonNull(key, "key").indexOf('/');
    if (slash < 0) {
      return segment(key);
    }
    return segment(key.substring(0, slash)) + "/" + segment(key.substring(slash + 1));
  }

  private static String query(String name, String value) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put(name, value);
    return query(q);
  }

  private static String query(Map<String, String> q) {
    String s =
        q.entrySet().stream()
            .filter(e -> e.getValue() != null)
            .map(e -> e.getKey() + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
    return s.isEmpty() ? "" : "?" + s;
  }

  /** A lazy stream over the pages {@code fetch} answers, following {@code nextCursor}. */
  private static <T> Stream<T> follow(Function<String, Page<T>> fetch) {
    Iterator<T> it =
        new Iterator<>() {
          private Iterator<T> page = List.<T>of().iterator();
          private String cursor;
          private boolean last;

          @Override
          public boolean hasNext() {
            while (!page.hasNext() && !last) {
              Page<T> p = fetch.apply(cursor);
              page = new ArrayList<>(p.items()).iterator();
              cursor = p.nextCursor();
              last = cursor == null;
            }
            return page.hasNext();
          }

          @Override
          public T next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return page.next();
          }
        };
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED | Spliterator.NONNULL), false);
  }

  /**
   * Configures a {@link CarillonClient}. The base URL is required; the token is required by every
   * server except one started as {@code api.insecure-local}.
   */
  @Stability.Evolving
  public static final class Builder {
    private URI baseUrl;
    private String token;
    private Duration connectTimeout = Duration.ofSeconds(DEFAULT_CONNECT_TIMEOUT_SECONDS);
    private Duration requestTimeout = Duration.ofSeconds(DEFAULT_REQUEST_TIMEOUT_SECONDS);
    private Duration pollInitial = Duration.ofMillis(100);
    private Duration pollMax = Duration.ofSeconds(5);

    private Builder() {}

    /**
     * The API's base URL: scheme, host and port, e.g. {@code http://127.0.0.1:8080} (a path {@code
     * /api/v1} at its end is accepted and dropped).
     */
    public Builder baseUrl(String url) {
      Objects.requireNonNull(url, "url");
      String u = url.strip();
      while (u.endsWith("/")) {
        u = u.substring(0, u.length() - 1);
      }
      if (u.endsWith(API)) {
        u = u.substring(0, u.length() - API.length());
      }
      URI uri;
      try {
        uri = URI.create(u + "/");
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "base URL '" + url + "' is not a URL: " + e.getMessage(), e);
      }
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException(
            "base URL '" + url + "' must start with http:// or https://");
      }
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("base URL '" + url + "' names no host");
      }
      this.baseUrl = uri;
      return this;
    }

    /** The bearer token ({@code crl_...}); never logged or shown in messages. */
    public Builder token(String token) {
      this.token = token == null || token.isBlank() ? null : token.strip();
      return this;
    }

    /**
     * Reads {@value #ENV_URL} and {@value #ENV_TOKEN} from {@code env} (pass {@code
     * System.getenv()}); a variable that is not set leaves the setting as it is.
     */
    public Builder fromEnvironment(Map<String, String> env) {
      String url = env.get(ENV_URL);
      if (url != null && !url.isBlank()) {
        baseUrl(url);
      }
      String t = env.get(ENV_TOKEN);
      if (t != null && !t.isBlank()) {
        token(t);
      }
      return this;
    }

    /** How long to wait for a TCP connection (more than 0). */
    public Builder connectTimeout(Duration d) {
      this.connectTimeout = positive("connectTimeout", d);
      return this;
    }

    /** How long to wait for one answer, from sending the request to its last byte (more than 0). */
    public Builder requestTimeout(Duration d) {
      this.requestTimeout = positive("requestTimeout", d);
      return this;
    }

    /**
     * How {@link #awaitOutcome} polls: first after {@code initial}, each wait double the one
     * before, at most {@code max}.
     */
    public Builder pollBackoff(Duration initial, Duration max) {
      this.pollInitial = positive("initial", initial);
      this.pollMax = positive("max", max);
      if (max.compareTo(initial) < 0) {
        throw new IllegalArgumentException("poll max " + max + " is less than initial " + initial);
      }
      return this;
    }

    /** The client. */
    public CarillonClient build() {
      if (baseUrl == null) {
        throw new IllegalArgumentException(
            "no API URL: set " + ENV_URL + " (e.g. http://127.0.0.1:8080) or call baseUrl(...)");
      }
      return new CarillonClient(this);
    }

    private static Duration positive(String name, Duration d) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be more than 0, was " + d);
      }
      return d;
    }
  }
}
