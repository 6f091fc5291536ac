package dev.carillon.control;

import dev.carillon.auth.TokenFile;
import dev.carillon.control.auth.Authenticator;
import dev.carillon.control.auth.RequestRateLimiter;
import dev.carillon.control.console.ConsoleHandler;
import dev.carillon.control.resources.ApplyRoutes;
import dev.carillon.control.resources.ConfigRoutes;
import dev.carillon.control.resources.InsightRoutes;
import dev.carillon.control.resources.InstanceRoutes;
import dev.carillon.control.resources.MetaRoutes;
import dev.carillon.control.resources.TaskRoutes;
import dev.carillon.control.web.ApiHandler;
import dev.carillon.control.web.Route;
import dev.carillon.control.web.Router;
import dev.carillon.http.HttpServers;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control-plane API ({@code /api/v1}) on its own HTTP server: its own port, threads and
 * database connections, so no load on it can delay the admin port's health checks or take the
 * trigger's connections. Every route is in {@link #routes}; the OpenAPI document is checked against
 * them.
 *
 * <p>{@link #close()} stops the server (idempotent); the caller closes what it passed in.
 */
public final class ApiServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);

  private final HttpServers.RunningServer server;
  private final Router router;
  private final CompletableFuture<Integer> overviewWarmUp;

  private ApiServer(
      HttpServers.RunningServer server, Router router, CompletableFuture<Integer> overviewWarmUp) {
    this.server = server;
    this.router = router;
    this.overviewWarmUp = overviewWarmUp;
  }

  /** Every route of the API, in the order of the OpenAPI document. */
  public static List<Route> routes(ControlPlane plane, Insight insight) {
    return routes(plane, new InsightRoutes(plane, insight));
  }

  private static List<Route> routes(ControlPlane plane, InsightRoutes insightRoutes) {
    List<Route> all = new ArrayList<>();
    all.addAll(new ApplyRoutes(plane).routes());
    all.addAll(new TaskRoutes(plane).routes());
    all.addAll(new InstanceRoutes(plane).routes());
    all.addAll(new ConfigRoutes(plane).routes());
    all.addAll(new MetaRoutes().routes());
    all.addAll(insightRoutes.routes());
    return all;
  }

  /**
   * Starts the API, and the web console's files under {@code /console/} beside it.
   *
   * @throws IllegalArgumentException naming the tokens file and the line when it is wrong
   * @throws java.io.UncheckedIOException naming the address when the port cannot be bound
   */
  public static ApiServer start(
      ApiSettings settings, ControlPlane plane, Insight insight, MeterRegistry registry) {
    Authenticator auth =
        settings
            .tokensFile()
            .map(f -> Authenticator.of(TokenFile.read(f)))
            .orElseGet(Authenticator::insecureLocal);
    if (auth.insecure()) {
      log.warn(
          "The API runs WITHOUT authentication (api.insecure-local=true): every caller is an admin."
              + " Only for a local, single-user setup.");
    }
    InsightRoutes insightRoutes = new InsightRoutes(plane, insight);
    Router router = new Router(routes(plane, insightRoutes));
    ApiHandler handler =
        new ApiHandler(
            router,
            auth,
            new RequestRateLimiter(settings.ratePerSecond(), settings.rateBurst(), plane.clock()),
            (int) settings.http().maxBodyBytes(),
            settings.requestTimeout(),
            registry);
    HttpServers.RunningServer server =
        HttpServers.start(
            "api", settings.http(), handler.drainCeiling(), new ConsoleHandler(handler), registry);
    log.info(
        "API on port {} ({} routes, the console at {}): {}",
        server.port(),
        router.routes().size(),
        ConsoleHandler.PREFIX,
        settings.describe());
    return new ApiServer(server, router, warmUp(insightRoutes));
  }

  /**
   * Counts the overview's earlier hours on a daemon thread of its own, so that the first request
   * after a start does not (InsightRoutes.warmUp). A failure is logged and leaves the counting to
   * the first request, as without the warm-up; each statement has the database's statement timeout.
   */
  private static CompletableFuture<Integer> warmUp(InsightRoutes insightRoutes) {
    CompletableFuture<Integer> done = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              long start = System.nanoTime();
              try {
                int hours = insightRoutes.warmUp();
                log.info(
                    "Overview: counted {} earlier hour(s) ahead of the first request in {} ms",
                    hours,
                    Duration.ofNanos(System.nanoTime() - start).toMillis());
                done.complete(hours);
              } catch (RuntimeException e) {
                log.warn(
                    "Overview: counting the earlier hours ahead of the first request failed ({});"
                        + " the first request counts them",
                    e.toString());
                done.completeExceptionally(e);
              }
            },
            "api-overview-warm-up");
    t.setDaemon(true);
    t.start();
    return done;
  }

  /**
   * The overview's warm-up: completes with the hours it counted, or exceptionally with why it
   * failed.
   */
  public CompletableFuture<Integer> overviewWarmUp() {
    return overviewWarmUp;
  }

  /** The port listened on. */
  public int port() {
    return server.port();
  }

  /** The routes served. */
  public Router router() {
    return router;
  }

  @Override
  public void close() {
    server.close();
  }
}
