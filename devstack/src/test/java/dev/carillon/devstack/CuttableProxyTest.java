package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy forwards, swallows everything while cut, and closes what was open when restored. */
class CuttableProxyTest {
  private ServerSocket echo;
  private CuttableProxy proxy;

  @BeforeEach
  void setUp() throws IOException {
    echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t =
        new Thread(
            () -> {
              while (!echo.isClosed()) {
                try {
                  Socket s = echo.accept();
                  Thread c =
                      new Thread(
                          () -> {
                            try (s) {
                              s.getInputStream().transferTo(s.getOutputStream());
                            } catch (IOException e) {
                              // the client went away
                            }
                          });
                  c.setDaemon(true);
                  c.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    t.setDaemon(true);
    t.start();
    proxy = CuttableProxy.start("127.0.0.1", echo.getLocalPort());
  }

  @AfterEach
  void tearDown() throws IOException {
    proxy.close();
    echo.close();
  }

  private static int roundTrip(Socket s, int b) throws IOException {
    OutputStream out = s.getOutputStream();
    out.write(b);
    out.flush();
    InputStream in = s.getInputStream();
    return in.read();
  }

  @Test
  void bytes_pass_until_cut_nothing_passes_while_cut_and_restore_closes_the_cut_connections()
      throws IOException {
    try (Socket open = new Socket("127.0.0.1", proxy.port())) {
      open.setSoTimeout(2000);
      assertThat(roundTrip(open, 7)).isEqualTo(7);

      proxy.cut();
      assertThat(proxy.isCut()).isTrue();
      open.setSoTimeout(300);
      assertThatThrownBy(() -> roundTrip(open, 8)).isInstanceOf(SocketTimeoutException.class);
      try (Socket during = new Socket("127.0.0.1", proxy.port())) {
        during.setSoTimeout(300);
        assertThatThrownBy(() -> roundTrip(during, 9))
            .as("a connection made during the cut is accepted and never answered")
            .isInstanceOf(SocketTimeoutException.class);
      }

      proxy.restore();
      open.setSoTimeout(2000);
      assertThat(open.getInputStream().read())
          .as("the connection open during the cut is closed by the restore")
          .isEqualTo(-1);
    }
    try (Socket after = new Socket("127.0.0.1", proxy.port())) {
      after.setSoTimeout(2000);
      assertThat(roundTrip(after, 10)).isEqualTo(10);
    }
  }
}
