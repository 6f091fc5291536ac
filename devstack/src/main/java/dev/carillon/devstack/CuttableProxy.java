package dev.carillon.devstack;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP proxy on the loopback interface that a test can cut, to put one client (a worker's database
 * pool, say) behind a network partition while everything else still reaches the server. Point the
 * client at {@link #port()} instead of the server.
 *
 * <ul>
 *   <li>{@link #cut()}: from now on nothing passes in either direction, the way a partition
 *       behaves: connections stay open, what the client sends is swallowed, no answer comes, and
 *       new connections are accepted but never reach the server. A client without its own timeout
 *       waits.
 *   <li>{@link #restore()}: closes every connection that was open during the cut (the client sees
 *       its connection fail, as after a partition heals and the peers have given up on each other)
 *       and forwards new connections again.
 * </ul>
 *
 * <p>Two daemon threads per connection copy the bytes. Thread-safe; {@link #close()} closes the
 * listening socket and every connection.
 */
public final class CuttableProxy implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CuttableProxy.class);

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket server;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final Set<Socket> cutSockets = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private volatile boolean closed;

  private CuttableProxy(String targetHost, int targetPort, int listenPort) throws IOException {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), listenPort));
    Thread acceptor = new Thread(this::acceptLoop, "cuttable-proxy-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy on a free loopback port to {@code targetHost:targetPort}, forwarding. */
  public static CuttableProxy start(String targetHost, int targetPort) {
    return start(targetHost, targetPort, 0);
  }

  /**
   * A proxy on loopback port {@code listenPort} to {@code targetHost:targetPort}, forwarding: a
   * test can let clients find nothing on a port (connection refused, as with a stopped server) and
   * then open it.
   */
  public static CuttableProxy start(String targetHost, int targetPort, int listenPort) {
    try {
      return new CuttableProxy(targetHost, targetPort, listenPort);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open proxy port " + listenPort, e);
    }
  }

  /** The port clients connect to. */
  public int port() {
    return server.getLocalPort();
  }

  /** Partitions the clients from the server (see the class comment). */
  public void cut() {
    cutSockets.addAll(sockets);
    cut = true;
    log.info("Proxy {} -> {}:{} cut", port(), targetHost, targetPort);
  }

  /** Heals the partition: connections open during the cut are closed, new ones forwarded. */
  public void restore() {
    cut = false;
    for (Socket s : cutSockets) {
      closeQuietly(s);
    }
    cutSockets.clear();
    log.info("Proxy {} -> {}:{} restored", port(), targetHost, targetPort);
  }

  /** Whether the proxy is cut now. */
  public boolean isCut() {
    return cut;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed) {
          log.warn("Proxy {} stopped accepting: {}", port(), e.toString());
        }
        return;
      }
      sockets.add(client);
      if (cut) {
        // Accepted, but it never reaches the server: the client's first read waits.
        cutSockets.add(client);
        pump(client, null, client);
        continue;
      }
      Socket upstream;
      try {
        upstream = new Socket(targetHost, targetPort);
      } catch (IOException e) {
        log.warn("Proxy {} cannot reach {}:{}: {}", port(), targetHost, targetPort, e.toString());
        closeQuietly(client);
        continue;
      }
      sockets.add(upstream);
      pump(client, upstream, client);
      pump(upstream, client, client);
    }
  }

  /**
   * Copies {@code from} to {@code to} while not cut; while cut, swallows what arrives. {@code to}
   * null swallows everything. Ends both sockets when either side closes.
   */
  private void pump(Socket from, Socket to, Socket client) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try {
                InputStream in = from.getInputStream();
                OutputStream out = to == null ? null : to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (out != null && !cut && !cutSockets.contains(client)) {
                    out.write(buffer, 0, n);
                    out.flush();
                  }
                }
              } catch (IOException e) {
                // The other side went away, or restore() or close() closed the socket.
              } finally {
                closeQuietly(from);
                if (to != null) {
                  closeQuietly(to);
                }
              }
            },
            "cuttable-proxy-pump-" + port());
    t.setDaemon(true);
    t.start();
  }

  private void closeQuietly(Socket s) {
    sockets.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // Closing; nothing to do.
    }
    for (Socket s : Set.copyOf(sockets)) {
      closeQuietly(s);
    }
  }
}
