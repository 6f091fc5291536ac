package dev.carillon.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code clients} HTTP clients, each with its own connection and token, listing instances ({@code
 * GET /api/v1/instances?limit=...}, the newest first) back to back, with no pause, from {@code
 * from} to {@code until}. Each is a thread of its own; every request has a timeout. Started by
 * {@link #start}, stopped at {@code until} or by {@link #close} (which waits for the threads).
 */
final class ApiLoad implements AutoCloseable {
  /** Rows per listed page: a status page's worth. */
  static final int PAGE = 50;

  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final List<Client> clients = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Clock clock;
  private final Instant from;
  private final Instant until;

  private ApiLoad(Clock clock, Instant from, Instant until) {
    this.clock = clock;
    this.from = from;
    this.until = until;
  }

  /**
   * Starts one thread per token.
   *
   * @param base the API server's base URL
   * @param tokens one bearer token per client
   */
  static ApiLoad start(URI base, List<String> tokens, Clock clock, Instant from, Instant until) {
    ApiLoad load = new ApiLoad(clock, from, until);
    URI list = base.resolve("/api/v1/instances?limit=" + PAGE);
    for (int i = 0; i < tokens.size(); i++) {
      Client c = load.new Client(list, tokens.get(i));
      Thread t = new Thread(c, "api-client-" + i);
      t.setDaemon(true);
      c.thread = t;
      load.clients.add(c);
    }
    load.clients.forEach(c -> c.thread.start());
    return load;
  }

  /** Stops the clients (a request in flight finishes or times out) and waits for them. */
  @Override
  public void close() throws InterruptedException {
    stop.set(true);
    for (Client c : clients) {
      c.thread.join(REQUEST_TIMEOUT.plusSeconds(5).toMillis());
    }
  }

  /** The figures over every client; call after {@link #close}. */
  ApiStats stats() {
    long requests = 0;
    long ok = 0;
    long limited = 0;
    long other = 0;
    long errors = 0;
    int answered = 0;
    for (Client c : clients) {
      requests += c.requests;
      ok += c.ok;
      limited += c.limited;
      other += c.other;
      errors += c.errors;
      answered += c.count;
    }
    double[] all = new double[answered];
    int at = 0;
    for (Client c : clients) {
      for (int i = 0; i < c.count; i++) {
        all[at++] = c.nanos[i] / 1e6;
      }
    }
    double seconds = Duration.between(from, until).toNanos() / 1e9;
    return ApiStats.of(all, requests, ok, limited, other, errors, seconds);
  }

  /** One client; its counters are read only after its thread ended. */
  private final class Client implements Runnable {
    private final HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(CONNECT_TIMEOUT)
            .build();
    private final HttpRequest request;
    private Thread thread;
    private long[] nanos = new long[1024];
    private int count;
    private long requests;
    private long ok;
    private long limited;
    private long other;
    private long errors;

    Client(URI list, String token) {
      this.request =
          HttpRequest.newBuilder(list)
              .timeout(REQUEST_TIMEOUT)
              .header("Authorization", "Bearer " + token)
              .GET()
              .build();
    }

    @Override
    public void run() {
      Instant now;
      while (!stop.get() && (now = clock.instant()).isBefore(from)) {
        LockSupport.parkNanos(Duration.between(now, from).toNanos());
      }
      while (!stop.get() && clock.instant().isBefore(until)) {
        requests++;
        long t0 = System.nanoTime();
        try {
          HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
          record(System.nanoTime() - t0);
          switch (r.statusCode()) {
            case 200 -> ok++;
            case 429 -> limited++;
            default -> other++;
          }
        } catch (IOException e) {
          errors++;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }

    private void record(long n) {
      if (count == nanos.length) {
        nanos = Arrays.copyOf(nanos, count * 2);
      }
      nanos[count++] = n;
    }
  }
}
