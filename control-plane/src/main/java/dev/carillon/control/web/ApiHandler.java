package dev.carillon.control.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.carillon.auth.Principal;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.Problem;
import dev.carillon.control.auth.Authenticator;
import dev.carillon.control.auth.RequestRateLimiter;
import dev.carillon.http.Replies;
import dev.carillon.kafka.KafkaUnavailableException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API on Jetty: for each request, in order, authenticate the bearer token (401), count it
 * against the token's rate (429), find the route (404, 405), check the role (403), check the query
 * parameters (400), read the body without holding a thread while it arrives, within the size limit
 * and the request timeout (400, 408, 413), run the route, and write its reply as JSON or its
 * refusal as {@code application/problem+json}.
 *
 * <p>A database or Kafka that does not answer is a 503 naming it; any other failure a 500 whose
 * detail says only that the server failed (the log has the cause).
 */
public final class ApiHandler extends Handler.Abstract {
  private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);
  static final String PROBLEM_JSON = "application/problem+json";

  /** How far past the size limit a refused body is still read, so that its client sees why. */
  public static final long DRAIN_BEYOND_LIMIT = 8L * 1024 * 1024;

  private final Router router;
  private final Authenticator authenticator;
  private final RequestRateLimiter rates;

  private final int maxBodyBytes;
  private final long drainCeiling;
  private final Duration requestTimeout;
  private final MeterRegistry registry;

  /**
   * @param maxBodyBytes the largest body read
   * @param requestTimeout the longest a body may take to arrive
   */
  public ApiHandler(
      Router router,
      Authenticator authenticator,
      RequestRateLimiter rates,
      int maxBodyBytes,
      Duration requestTimeout,
      MeterRegistry registry) {
    this.router = router;
    this.authenticator = authenticator;
    this.rates = rates;
    this.maxBodyBytes = maxBodyBytes;
    this.drainCeiling = maxBodyBytes + DRAIN_BEYOND_LIMIT;
    this.requestTimeout = requestTimeout;
    this.registry = registry;
  }

  /**
   * The most bytes of one request's body this handler reads: the size limit and the refused rest it
   * drains ({@link #DRAIN_BEYOND_LIMIT}). The server's own size limit must not be below it.
   */
  public long drainCeiling() {
    return drainCeiling;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    long start = System.nanoTime();
    String method = request.getMethod();
    String path = request.getHttpURI().getDecodedPath();
    Principal principal = null;
    Router.Match match;
    try {
      Authenticator.Caller caller =
          authenticator.authenticate(request.getHeaders().get(HttpHeader.AUTHORIZATION));
      principal = caller.principal();
      rates.admit(caller);
      match = router.match(method, path);
      Route route = match.route();
      if (!principal.role().allows(route.role())) {
        throw ApiException.of(
            403,
            principal.name()
                + " is a "
                + principal.role().label()
                + "; "
                + method
                + " "
                + route.template()
                + " needs "
                + route.role().label(),
            List.of(
                FieldProblem.of(
                    "role",
                    principal.role().label(),
                    "may not "
                        + method
                        + " "
                        + route.template()
                        + "; it needs "
                        + route.role().label())));
      }
      QueryParams query = query(request, route);
      if (route.body() == Route.Body.NONE) {
        if (hasBody(request)) {
          throw ApiException.badRequest(
              "body",
              request.getLength() + " bytes",
              "must be empty: " + method + " " + route.template() + " takes no body");
        }
        run(
            request,
            response,
            callback,
            new Invocation(principal, match, query, new byte[0]),
            start);
        return true;
      }
      checkContentType(request, route.body());
      if (request.getLength() > maxBodyBytes) {
        // Refused from its declared length, before a byte of it is kept.
        throw tooLarge();
      }
      Invocation pending = new Invocation(principal, match, query, null);
      BodyReader.read(request, maxBodyBytes, drainCeiling)
          .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
          .whenCompleteAsync(
              (read, failure) -> {
                if (failure != null) {
                  fail(
                      request,
                      response,
                      callback,
                      pending.principal(),
                      pending.match(),
                      bodyFailure(failure),
                      start);
                } else if (read.body() == null) {
                  if (!read.whole()) {
                    closeAfter(response);
                  }
                  fail(
                      request,
                      response,
                      callback,
                      pending.principal(),
                      pending.match(),
                      tooLarge(),
                      start);
                } else {
                  run(request, response, callback, pending.withBody(read.body()), start);
                }
              },
              request.getComponents().getExecutor());
      return true;
    } catch (ApiException e) {
      refuseUnread(request, response, callback, principal, null, e, start);
      return true;
    }
  }

  /**
   * Answers a refusal decided before the request's body was read to its end. An authenticated
   * caller's body is read first and dropped (see {@link BodyReader}), up to {@link
   * #DRAIN_BEYOND_LIMIT} past the size limit and within the request timeout, so that its client
   * sees the answer and not a reset. An anonymous caller's body is not read (the server does no
   * work for a caller it does not know) and neither is one declared longer than that.
   */
  private void refuseUnread(
      Request request,
      Response response,
      Callback callback,
      Principal principal,
      Router.Match match,
      ApiException e,
      long start) {
    if (!hasBody(request)) {
      fail(request, response, callback, principal, match, e, start);
      return;
    }
    if (principal == null || request.getLength() > drainCeiling) {
      closeAfter(response);
      fail(request, response, callback, principal, match, e, start);
      return;
    }
    BodyReader.drain(request, drainCeiling)
        .orTimeout(requestTimeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenCompleteAsync(
            (read, failure) -> {
              if (failure != null || !read.whole()) {
                closeAfter(response);
              }
              fail(request, response, callback, principal, match, e, start);
            },
            request.getComponents().getExecutor());
  }

  /**
   * Says that the connection closes after this answer: the rest of the body may still be on its
   * way, so the connection cannot carry another request, and saying so keeps a client from sending
   * its next request on a connection the server is about to close (seen as "header parser received
   * no bytes" by the JDK client).
   */
  private static void closeAfter(Response response) {
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
  }

  /** A request ready to run, once its body has arrived. */
  private record Invocation(
      Principal principal, Router.Match match, QueryParams query, byte[] body) {
    Invocation withBody(byte[] bytes) {
      return new Invocation(principal, match, query, bytes);
    }
  }

  private void run(
      Request request, Response response, Callback callback, Invocation inv, long start) {
    Route route = inv.match().route();
    Reply reply;
    try {
      reply =
          route
              .handler()
              .handle(
                  new ApiRequest(
                      inv.principal(),
                      inv.match().pathParams(),
                      inv.query(),
                      name -> request.getHeaders().get(name),
                      inv.body()));
    } catch (ApiException e) {
      fail(request, response, callback, inv.principal(), inv.match(), e, start);
      return;
    } catch (RuntimeException e) {
      fail(
          request, response, callback, inv.principal(), inv.match(), unexpected(request, e), start);
      return;
    }
    reply.headers().forEach((k, v) -> response.getHeaders().put(k, v));
    byte[] json;
    try {
      json = JsonBodies.JSON.writeValueAsBytes(reply.body());
    } catch (JsonProcessingException e) {
      fail(
          request, response, callback, inv.principal(), inv.match(), unexpected(request, e), start);
      return;
    }
    Replies.send(request, response, callback, reply.status(), "application/json", json);
    done(request, inv.principal(), inv.match(), reply.status(), start);
  }

  private void fail(
      Request request,
      Response response,
      Callback callback,
      Principal principal,
      Router.Match match,
      ApiException e,
      long start) {
    e.headers().forEach((k, v) -> response.getHeaders().put(k, v));
    Problem problem =
        new Problem(
            "about:blank",
            HttpStatus.getMessage(e.status()),
            e.status(),
            e.getMessage(),
            e.problems());
    byte[] json;
    try {
      json = JsonBodies.JSON.writeValueAsBytes(problem);
    } catch (JsonProcessingException impossible) {
      json = ("{\"status\":" + e.status() + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    Replies.send(request, response, callback, e.status(), PROBLEM_JSON, json);
    done(request, principal, match, e.status(), start);
  }

  private void done(
      Request request, Principal principal, Router.Match match, int status, long start) {
    long nanos = System.nanoTime() - start;
    String template = match == null ? "unmatched" : match.route().template();
    Timer.builder("carillon.api.requests")
        .description("API requests by route and status")
        .tag("method", request.getMethod())
        .tag("route", template)
        .tag("status", Integer.toString(status))
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
    boolean change = !"GET".equals(request.getMethod()) && !"HEAD".equals(request.getMethod());
    if (change || status >= 500) {
      log.info(
          "api {} {} {} by {}: {} in {} ms",
          request.getMethod(),
          request.getHttpURI().getPathQuery(),
          match == null ? "" : "(" + template + ")",
          principal == null ? "(unauthenticated)" : principal.actor(),
          status,
          nanos / 1_000_000);
    }
  }

  private QueryParams query(Request request, Route route) {
    Fields fields;
    try {
      fields = Request.extractQueryParameters(request);
    } catch (RuntimeException e) {
      throw ApiException.badRequest(
          "query", request.getHttpURI().getQuery(), "cannot be decoded: " + e.getMessage());
    }
    Map<String, List<String>> values = new HashMap<>();
    List<FieldProblem> unknown = new ArrayList<>();
    for (String name : fields.getNames()) {
      if (!route.query().contains(name)) {
        unknown.add(
            FieldProblem.of(
                name,
                fields.getValue(name),
                route.query().isEmpty()
                    ? "is not a parameter of " + route.template() + " (it takes none)"
                    : "is not a parameter of "
                        + route.template()
                        + "; known: "
                        + route.query().stream().sorted().toList()));
      }
      values.put(name, fields.getValues(name));
    }
    if (!unknown.isEmpty()) {
      throw ApiException.badRequest(unknown);
    }
    return new QueryParams(values);
  }

  private static boolean hasBody(Request request) {
    return request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
  }

  private static void checkContentType(Request request, Route.Body body) {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !hasBody(request)) {
      return;
    }
    if (isJson(type) || body == Route.Body.SPEC && isYaml(type)) {
      return;
    }
    String allowed =
        body == Route.Body.SPEC ? "application/json or application/yaml" : "application/json";
    throw ApiException.of(
        415,
        "Content-Type '" + type + "' is not supported: send " + allowed,
        List.of(FieldProblem.of("Content-Type", type, "must be " + allowed)));
  }

  private static String mime(String type) {
    return type.split(";")[0].strip().toLowerCase(java.util.Locale.ROOT);
  }

  /** {@code application/json} or a {@code +json} type. */
  static boolean isJson(String type) {
    String mime = mime(type);
    return mime.equals("application/json") || mime.endsWith("+json");
  }

  /** {@code application/yaml}, {@code application/x-yaml} or {@code text/yaml}. */
  public static boolean isYaml(String type) {
    String mime = mime(type);
    return mime.equals("application/yaml")
        || mime.equals("application/x-yaml")
        || mime.equals("text/yaml");
  }

  private ApiException bodyFailure(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    if (cause instanceof TimeoutException) {
      return ApiException.of(
          408,
          "the body did not arrive within " + requestTimeout.toMillis() + " ms",
          List.of(
              FieldProblem.of(
                  "body", null, "must arrive within " + requestTimeout.toMillis() + " ms")));
    }
    if (cause.getMessage() != null && cause.getMessage().contains("413")) {
      // The server's own ceiling (Jetty's SizeLimitHandler) cut a chunked body off.
      return tooLarge();
    }
    return ApiException.badRequest("body", null, "could not be read: " + cause.getMessage());
  }

  private ApiException tooLarge() {
    return ApiException.of(
        413,
        "the body is larger than " + maxBodyBytes + " bytes",
        List.of(
            FieldProblem.of(
                "body",
                "more than " + maxBodyBytes + " bytes",
                "must be at most " + maxBodyBytes + " bytes")));
  }

  private static ApiException unexpected(Request request, Exception e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      if (root instanceof DataAccessException || root instanceof KafkaUnavailableException) {
        break;
      }
      root = root.getCause();
    }
    if (e instanceof DataAccessException || root instanceof java.sql.SQLException) {
      log.warn(
          "api {} {}: the database failed: {}",
          request.getMethod(),
          request.getHttpURI().getPath(),
          e.toString());
      return ApiException.of(
              503,
              "the database did not answer; nothing was changed unless said otherwise; retry",
              List.of())
          .withHeader("Retry-After", "5");
    }
    if (e instanceof KafkaUnavailableException k) {
      log.warn(
          "api {} {}: {}", request.getMethod(), request.getHttpURI().getPath(), k.getMessage());
      return ApiException.of(503, k.getMessage(), List.of()).withHeader("Retry-After", "5");
    }
    log.error("api {} {} failed", request.getMethod(), request.getHttpURI().getPath(), e);
    return ApiException.of(500, "the server failed; its log says why", List.of());
  }
}
