package dev.carillon.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.http.HttpServerSettings;
import dev.carillon.http.HttpServers;
import dev.carillon.http.Replies;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The read-only admin port of a service: {@code GET /health/live}, {@code GET /health/ready} (200
 * or 503 with a JSON body) and {@code GET /metrics} (Prometheus text). Every other method is
 * answered 405: nothing here changes state. Unauthenticated on purpose (orchestrators probe it), so
 * it serves nothing but these.
 *
 * <p>It runs on {@link HttpServers} with its own small thread pool, so that no load on another port
 * of the process (the API) can delay a health check, and a client trickling its headers holds no
 * thread and loses its connection at the header deadline.
 */
public final class AdminServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServers.RunningServer server;

  private AdminServer(HttpServers.RunningServer server) {
    this.server = server;
  }

  /**
   * Starts on {@code port} (0 picks a free port) on all interfaces with the default limits.
   *
   * @param health called on every health request; must be cheap and must not throw
   */
  public static AdminServer start(
      String service, int port, PrometheusMeterRegistry registry, Supplier<HealthReport> health) {
    return start(
        service,
        HttpServerSettings.defaults(port, HttpServerSettings.ADMIN_MAX_BODY_BYTES),
        registry,
        health);
  }

  /**
   * Starts within {@code settings} ({@link HttpServerSettings#admin}).
   *
   * @param health called on every health request; must be cheap and must not throw
   * @throws java.io.UncheckedIOException naming the address when the port cannot be bound
   */
  public static AdminServer start(
      String service,
      HttpServerSettings settings,
      PrometheusMeterRegistry registry,
      Supplier<HealthReport> health) {
    return new AdminServer(
        HttpServers.start(
            service + "-admin", settings, new Endpoints(service, registry, health), registry));
  }

  public int port() {
    return server.port();
  }

  @Override
  public void close() {
    server.close();
  }

  private static final class Endpoints extends Handler.Abstract {
    private final String service;
    private final PrometheusMeterRegistry registry;
    private final Supplier<HealthReport> health;

    Endpoints(String service, PrometheusMeterRegistry registry, Supplier<HealthReport> health) {
      this.service = service;
      this.registry = registry;
      this.health = health;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback)
        throws JsonProcessingException {
      String method = request.getMethod();
      if (!HttpMethod.GET.is(method) && !HttpMethod.HEAD.is(method)) {
        response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
        Replies.send(request, response, callback, 405, "text/plain", "read-only endpoint\n");
        return true;
      }
      switch (Request.getPathInContext(request)) {
        case "/health/live" -> answerHealth(request, response, callback, true);
        case "/health/ready" -> answerHealth(request, response, callback, false);
        case "/metrics" ->
            Replies.send(
                request,
                response,
                callback,
                200,
                "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape());
        default ->
            Replies.send(
                request,
                response,
                callback,
                404,
                "text/plain",
                "try /health/live, /health/ready or /metrics\n");
      }
      return true;
    }

    private void answerHealth(
        Request request, Response response, Callback callback, boolean liveness)
        throws JsonProcessingException {
      HealthReport report = health.get();
      boolean ok = liveness ? report.live() : report.ready();
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("service", service);
      body.put("status", ok ? "UP" : "DOWN");
      body.putAll(report.details());
      Replies.send(
          request,
          response,
          callback,
          ok ? 200 : 503,
          "application/json",
          JSON.writeValueAsString(body) + "\n");
    }
  }
}
