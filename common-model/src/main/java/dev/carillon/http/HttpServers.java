package dev.carillon.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a Jetty 12 (core, no servlets) HTTP/1.1 server within the limits of an {@link
 * HttpServerSettings}: one bind address and port, a thread pool of at most {@code maxThreads}, a
 * bounded number of requests running and waiting for a thread (503 beyond), an idle timeout, a
 * deadline for complete request heads ({@link HeaderDeadline}), limits on header and body sizes, a
 * connection limit, and errors as {@code application/problem+json}. The admin ports and the API
 * share it.
 */
public final class HttpServers {
  private static final Logger log = LoggerFactory.getLogger(HttpServers.class);

  /** How long a request waits for a free thread before it is answered 503. */
  public static final Duration MAX_WAIT_FOR_THREAD = Duration.ofSeconds(10);

  private HttpServers() {}

  /**
   * Starts a server; the caller closes it.
   *
   * @param name names the threads and log lines, e.g. {@code trigger-admin}
   * @param handler answers every request whose head is complete and within the limits
   * @param registry receives {@code carillon.http.slow.closed{server=name}}
   * @throws UncheckedIOException naming the address when the port cannot be bound
   */
  public static RunningServer start(
      String name, HttpServerSettings settings, Handler handler, MeterRegistry registry) {
    return start(name, settings, settings.maxBodyBytes(), handler, registry);
  }

  /**
   * Starts a server whose handler enforces the settings' body limit itself, so that it can read a
   * refused body to its end and its client sees the refusal, not a reset (the API does this, for
   * authenticated callers). The server refuses a body declared longer than {@code bodyCeiling}
   * before the handler sees it, and closes the connection after the answer.
   *
   * @param bodyCeiling the largest body declared to the handler, at least the settings' limit
   */
  public static RunningServer start(
      String name,
      HttpServerSettings settings,
      long bodyCeiling,
      Handler handler,
      MeterRegistry registry) {
    // The pool's own queue stays unbounded: Jetty queues its internal tasks there too, and a
    // refused internal task breaks connections in odd ways. Requests are bounded by the QoSHandler
    // below instead: at most maxThreads - 2 run at once (the acceptor and the selector hold one
    // thread each), at most maxQueuedRequests wait for a slot (holding no thread), the rest are
    // answered 503.
    QueuedThreadPool pool =
        new QueuedThreadPool(settings.maxThreads(), Math.min(4, settings.maxThreads()), 60_000);
    pool.setName(name);
    pool.setDaemon(true);
    // No threads parked in reserve: with a handful of threads each one should serve requests.
    pool.setReservedThreads(0);
    Server server = new Server(pool);

    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(settings.maxHeaderBytes());
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(http));
    connector.setHost(settings.bindAddress());
    connector.setPort(settings.port());
    connector.setIdleTimeout(settings.idleTimeout().toMillis());
    server.addConnector(connector);
    server.addBean(new NetworkConnectionLimit(settings.maxConnections(), connector));

    Counter slowClosed =
        Counter.builder("carillon.http.slow.closed")
            .description("connections closed for not completing a request head in time")
            .tag("server", name)
            .register(registry);
    SizeLimitHandler bodyLimit =
        new SizeLimitHandler(Math.max(bodyCeiling, settings.maxBodyBytes()), -1);
    bodyLimit.setHandler(handler);
    QoSHandler requests = new QoSHandler(bodyLimit);
    requests.setMaxRequestCount(settings.maxThreads() - 2);
    requests.setMaxSuspendedRequestCount(settings.maxQueuedRequests());
    requests.setMaxSuspend(MAX_WAIT_FOR_THREAD);
    requests.setRejectStatusCode(503);
    HeaderDeadline deadline =
        new HeaderDeadline(name, settings.headerTimeout(), slowClosed, requests);
    connector.addBean(deadline);
    server.setHandler(deadline);
    server.setErrorHandler(
        new ProblemErrorHandler(settings.maxHeaderBytes(), settings.maxBodyBytes()));
    server.setStopTimeout(2_000);
    try {
      server.start();
    } catch (IOException e) {
      stopQuietly(server);
      throw new UncheckedIOException(
          "cannot listen on " + settings.bindAddress() + ":" + settings.port(), e);
    } catch (Exception e) {
      stopQuietly(server);
      throw new IllegalStateException(
          "cannot start " + name + " on " + settings.bindAddress() + ":" + settings.port(), e);
    }
    log.info(
        "{} listening on {}:{} (threads {}, idle {}, header deadline {}, body limit {} bytes,"
            + " connections {})",
        name,
        settings.bindAddress(),
        connector.getLocalPort(),
        settings.maxThreads(),
        settings.idleTimeout(),
        settings.headerTimeout(),
        settings.maxBodyBytes(),
        settings.maxConnections());
    return new RunningServer(name, server, connector);
  }

  private static void stopQuietly(Server server) {
    try {
      server.stop();
    } catch (Exception e) {
      log.debug("stopping a server that failed to start: {}", e.toString());
    }
  }

  /** A started server. {@link #close()} stops it (idempotent). */
  public static final class RunningServer implements AutoCloseable {
    private final String name;
    private final Server server;
    private final ServerConnector connector;

    private RunningServer(String name, Server server, ServerConnector connector) {
      this.name = name;
      this.server = server;
      this.connector = connector;
    }

    /** The port listened on (the chosen one when the settings said 0). */
    public int port() {
      return connector.getLocalPort();
    }

    @Override
    public void close() {
      try {
        server.stop();
      } catch (Exception e) {
        log.warn("stopping {} failed: {}", name, e.toString());
      }
    }
  }
}
