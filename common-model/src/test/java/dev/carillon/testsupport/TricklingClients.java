package dev.carillon.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients that send a request head one byte at a time and never finish it (a slowloris), for tests
 * of a server's header deadline. When the server closes one, it connects again and starts over, so
 * the pressure lasts until {@link #close()}.
 */
public final class TricklingClients implements AutoCloseable {
  private static final byte[] HEAD =
      ("GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(4000))
          .getBytes(StandardCharsets.US_ASCII);

  private final InetSocketAddress target;
  private final ScheduledExecutorService timer;
  private final List<Trickler> clients = new ArrayList<>();
  private final AtomicInteger closedByServer = new AtomicInteger();
  private final AtomicInteger bytesSent = new AtomicInteger();

  private TricklingClients(InetSocketAddress target, int count) {
    this.target = target;
    this.timer = Executors.newScheduledThreadPool(2);
    for (int i = 0; i < count; i++) {
      clients.add(new Trickler());
    }
  }

  /**
   * Starts {@code count} clients against {@code host:port}, each sending a byte per {@code every}.
   */
  public static TricklingClients start(String host, int port, int count, Duration every) {
    TricklingClients c = new TricklingClients(new InetSocketAddress(host, port), count);
    for (Trickler t : c.clients) {
      c.timer.scheduleAtFixedRate(t::step, 0, every.toMillis(), TimeUnit.MILLISECONDS);
    }
    return c;
  }

  /** How many times the server closed one of the connections before its head was complete. */
  public int closedByServer() {
    return closedByServer.get();
  }

  /** Header bytes sent so far by all clients. */
  public int bytesSent() {
    return bytesSent.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Trickler t : clients) {
      t.disconnect();
    }
  }

  private final class Trickler {
    private Socket socket;
    private OutputStream out;
    private int next;

    /** Sends the next byte; reconnects when the server has closed the connection. */
    void step() {
      try {
        if (socket == null) {
          socket = new Socket();
          socket.connect(target, 2_000);
          out = socket.getOutputStream();
          next = 0;
        }
        if (serverClosed()) {
          closedByServer.incrementAndGet();
          disconnect();
          return;
        }
        out.write(HEAD[next++ % HEAD.length]);
        out.flush();
        bytesSent.incrementAndGet();
      } catch (IOException e) {
        // A write to a connection the server closed fails (reset or broken pipe).
        if (socket != null) {
          closedByServer.incrementAndGet();
        }
        disconnect();
      }
    }

    /** Whether the server has closed its end (a read sees end of stream without blocking). */
    private boolean serverClosed() throws IOException {
      if (socket.getInputStream().available() > 0) {
        return false;
      }
      socket.setSoTimeout(1);
      try {
        return socket.getInputStream().read() == -1;
      } catch (java.net.SocketTimeoutException e) {
        return false;
      }
    }

    void disconnect() {
      if (socket != null) {
        try {
          socket.close();
        } catch (IOException e) {
          // closing a dead socket
        }
      }
      socket = null;
      out = null;
    }
  }
}
