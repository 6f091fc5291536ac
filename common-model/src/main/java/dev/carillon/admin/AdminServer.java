package dev.carillon.admin;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read-only admin port of a service: {@code GET /health/live}, {@code GET /health/ready} (200
 * or 503 with a JSON body) and {@code GET /metrics} (Prometheus text). Every other method is
 * answered 405: nothing here changes state.
 */
public final class AdminServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;

  private AdminServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts on {@code port} (0 picks a free port) on all interfaces.
   *
   * @param health called on every health request; must be cheap and must not throw
   */
  public static AdminServer start(
      String service, int port, PrometheusMeterRegistry registry, Supplier<HealthReport> health)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, service + "-admin");
              t.setDaemon(true);
              return t;
            }));
    server.createContext("/health/live", ex -> answerHealth(ex, service, health, true));
    server.createContext("/health/ready", ex -> answerHealth(ex, service, health, false));
    server.createContext(
        "/metrics",
        ex -> {
          if (getOnly(ex)) {
            respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape());
          }
        });
    server.createContext(
        "/",
        ex -> {
          if (getOnly(ex)) {
            respond(ex, 404, "text/plain", "try /health/live, /health/ready or /metrics\n");
          }
        });
    server.start();
    log.info("{} admin endpoints on port {}", service, server.getAddress().getPort());
    return new AdminServer(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static boolean getOnly(HttpExchange ex) throws IOException {
    if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
      ex.getResponseHeaders().add("Allow", "GET, HEAD");
      respond(ex, 405, "text/plain", "read-only endpoint\n");
      return false;
    }
    return true;
  }

  private static void answerHealth(
      HttpExchange ex, String service, Supplier<HealthReport> health, boolean liveness)
      throws IOException {
    if (!getOnly(ex)) {
      return;
    }
    HealthReport report = health.get();
    boolean ok = liveness ? report.live() : report.ready();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("service", service);
    body.put("status", ok ? "UP" : "DOWN");
    body.putAll(report.details());
    respond(ex, ok ? 200 : 503, "application/json", JSON.writeValueAsString(body) + "\n");
  }

  private static void respond(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    boolean head = "HEAD".equals(ex.getRequestMethod());
    ex.sendResponseHeaders(code, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = ex.getResponseBody()) {
        out.write(bytes);
      }
    }
    ex.close();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
