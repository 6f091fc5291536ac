package dev.carillon.http;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose request line and headers are not complete within a deadline: counted
 * from the connection's opening for its first request, and from the first byte of the next request
 * on a kept-alive connection.
 *
 * <p>Why: Jetty's idle timeout restarts with every byte, so a client sending one header byte a
 * second keeps a connection open forever, and enough of them use up the connection limit. Parsing
 * is non-blocking, so such a client holds no thread; this bounds how long it holds a connection.
 *
 * <p>How: a {@link Connection.Listener} registers every connection; the wrapped handler, which runs
 * once a request head is complete, marks the connection busy until the request completes and then
 * notes the bytes read so far. A sweep on the server's scheduler (every quarter of the deadline, at
 * most every second) sees the next request's first bytes arrive and closes a connection whose head
 * has been arriving for longer than the deadline. So a connection is closed between the deadline
 * and the deadline plus one sweep period.
 */
final class HeaderDeadline extends Handler.Wrapper implements Connection.Listener {
  private static final Logger log = LoggerFactory.getLogger(HeaderDeadline.class);

  /** One connection's progress; written by the handler and the sweep, hence volatile. */
  private static final class Progress {
    /** A request is being handled: its head is complete. */
    volatile boolean busy;

    /** Bytes read when the last request completed. */
    volatile long bytesAtLastRequest;

    /** {@link System#nanoTime} when the head in progress began, or 0 while none is. */
    volatile long headSince;
  }

  private final String name;
  private final long limitNanos;
  private final Duration sweepEvery;
  private final Counter closed;
  private final Map<Connection, Progress> open = new ConcurrentHashMap<>();
  private volatile Scheduler.Task sweep;

  /**
   * @param name the server's name, for logs
   * @param limit the deadline
   * @param closed counts the connections closed for being slow
   */
  HeaderDeadline(String name, Duration limit, Counter closed, Handler handler) {
    super(handler);
    this.name = name;
    this.limitNanos = limit.toNanos();
    long quarter = Math.max(50, limit.toMillis() / 4);
    this.sweepEvery = Duration.ofMillis(Math.min(1000, quarter));
    this.closed = closed;
  }

  @Override
  public void onOpened(Connection connection) {
    Progress p = new Progress();
    p.headSince = System.nanoTime();
    open.put(connection, p);
  }

  @Override
  public void onClosed(Connection connection) {
    open.remove(connection);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Connection connection = request.getConnectionMetaData().getConnection();
    Progress p = open.get(connection);
    if (p != null) {
      p.busy = true;
      p.headSince = 0;
      Request.addCompletionListener(
          request,
          failure -> {
            p.bytesAtLastRequest = connection.getBytesIn();
            p.busy = false;
          });
    }
    return super.handle(request, response, callback);
  }

  @Override
  protected void doStart() throws Exception {
    super.doStart();
    schedule();
  }

  @Override
  protected void doStop() throws Exception {
    Scheduler.Task task = sweep;
    if (task != null) {
      task.cancel();
    }
    super.doStop();
  }

  private void schedule() {
    if (isRunning() || isStarting()) {
      sweep =
          getServer()
              .getScheduler()
              .schedule(this::sweepOnce, sweepEvery.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private void sweepOnce() {
    try {
      long now = System.nanoTime();
      for (Map.Entry<Connection, Progress> e : open.entrySet()) {
        Connection c = e.getKey();
        Progress p = e.getValue();
        if (p.busy) {
          continue;
        }
        long since = p.headSince;
        if (since == 0) {
          if (c.getBytesIn() > p.bytesAtLastRequest) {
            p.headSince = now;
          }
        } else if (now - since > limitNanos) {
          open.remove(c);
          closed.increment();
          log.info(
              "{}: closed a connection from {}: no complete request head within {} ms",
              name,
              c.getEndPoint().getRemoteSocketAddress(),
              limitNanos / 1_000_000);
          c.close();
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: header deadline sweep failed: {}", name, e.toString());
    } finally {
      schedule();
    }
  }
}
