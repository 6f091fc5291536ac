package dev.carillon.http;

import dev.carillon.config.Config;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The limits of one HTTP server (an admin port or the API port): where it listens and how much any
 * client may take of it.
 *
 * @param bindAddress the interface to listen on ({@code 0.0.0.0} for all, {@code 127.0.0.1} for the
 *     local host only)
 * @param port the port, 0 for any free port
 * @param maxThreads the most threads handling requests at once; a trickling client holds none
 *     (parsing is non-blocking), only a request whose head is complete does
 * @param maxQueuedRequests requests that may wait (holding no thread) while {@code maxThreads - 2}
 *     run; more are answered 503 rather than queued without bound
 * @param idleTimeout a connection silent for this long is closed
 * @param headerTimeout a connection must complete a request line and headers within this long: from
 *     its opening for the first request, from its first byte for the next ones
 * @param maxHeaderBytes the largest request line plus headers (431 beyond)
 * @param maxBodyBytes the largest request body (413 beyond)
 * @param maxConnections the most open connections; further ones wait in the accept queue
 */
public record HttpServerSettings(
    String bindAddress,
    int port,
    int maxThreads,
    int maxQueuedRequests,
    Duration idleTimeout,
    Duration headerTimeout,
    int maxHeaderBytes,
    long maxBodyBytes,
    int maxConnections) {

  public static final String ALL_INTERFACES = "0.0.0.0";
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(5);
  public static final int DEFAULT_MAX_HEADER_BYTES = 16 * 1024;
  public static final int DEFAULT_MAX_CONNECTIONS = 256;

  /** Threads of an admin server: enough for health, metrics and Jetty's acceptor and selector. */
  public static final int ADMIN_THREADS = 8;

  /** The admin ports read no request bodies (every endpoint is a GET). */
  public static final long ADMIN_MAX_BODY_BYTES = 0;

  /** The {@code admin.*} keys {@link #admin} reads besides {@code admin.port}. */
  public static final List<String> ADMIN_KEYS =
      List.of(
          "admin.bind-address",
          "admin.idle-timeout",
          "admin.header-timeout",
          "admin.max-connections");

  public HttpServerSettings {
    Objects.requireNonNull(bindAddress, "bindAddress");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    Objects.requireNonNull(headerTimeout, "headerTimeout");
    if (bindAddress.isBlank()) {
      throw new IllegalArgumentException("bindAddress must not be blank");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535, was " + port);
    }
    // Jetty's acceptor and selector each hold a thread of the pool.
    if (maxThreads < 4) {
      throw new IllegalArgumentException("maxThreads must be at least 4, was " + maxThreads);
    }
    if (maxQueuedRequests < 1) {
      throw new IllegalArgumentException(
          "maxQueuedRequests must be at least 1, was " + maxQueuedRequests);
    }
    if (idleTimeout.isNegative()
        || idleTimeout.isZero()
        || headerTimeout.isNegative()
        || headerTimeout.isZero()) {
      throw new IllegalArgumentException(
          "idleTimeout and headerTimeout must be positive, were "
              + idleTimeout
              + ", "
              + headerTimeout);
    }
    if (maxHeaderBytes < 1024) {
      throw new IllegalArgumentException(
          "maxHeaderBytes must be at least 1024, was " + maxHeaderBytes);
    }
    if (maxBodyBytes < 0) {
      throw new IllegalArgumentException("maxBodyBytes must not be negative, was " + maxBodyBytes);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException(
          "maxConnections must be at least 1, was " + maxConnections);
    }
  }

  /**
   * The admin port's settings: {@code admin.port} (given, as each service has its own default) and
   * the {@link #ADMIN_KEYS}.
   *
   * @throws dev.carillon.config.ConfigException naming the key, its source and the value
   */
  public static HttpServerSettings admin(Config c, int port) {
    return new HttpServerSettings(
        c.string("admin.bind-address", ALL_INTERFACES),
        port,
        ADMIN_THREADS,
        64,
        c.duration(
            "admin.idle-timeout", DEFAULT_IDLE_TIMEOUT, Duration.ofSeconds(1), Duration.ofHours(1)),
        c.duration(
            "admin.header-timeout",
            DEFAULT_HEADER_TIMEOUT,
            Duration.ofMillis(100),
            Duration.ofMinutes(5)),
        DEFAULT_MAX_HEADER_BYTES,
        ADMIN_MAX_BODY_BYTES,
        c.integer("admin.max-connections", DEFAULT_MAX_CONNECTIONS, 1, 100_000));
  }

  /** Settings for tests and tools: all interfaces, the defaults, the given port. */
  public static HttpServerSettings defaults(int port, long maxBodyBytes) {
    return new HttpServerSettings(
        ALL_INTERFACES,
        port,
        ADMIN_THREADS,
        64,
        DEFAULT_IDLE_TIMEOUT,
        DEFAULT_HEADER_TIMEOUT,
        DEFAULT_MAX_HEADER_BYTES,
        maxBodyBytes,
        DEFAULT_MAX_CONNECTIONS);
  }

  /** The same settings on another port. */
  public HttpServerSettings withPort(int newPort) {
    return new HttpServerSettings(
        bindAddress,
        newPort,
        maxThreads,
        maxQueuedRequests,
        idleTimeout,
        headerTimeout,
        maxHeaderBytes,
        maxBodyBytes,
        maxConnections);
  }

  /** The same settings with another header deadline. */
  public HttpServerSettings withHeaderTimeout(Duration value) {
    return new HttpServerSettings(
        bindAddress,
        port,
        maxThreads,
        maxQueuedRequests,
        idleTimeout,
        value,
        maxHeaderBytes,
        maxBodyBytes,
        maxConnections);
  }
}
