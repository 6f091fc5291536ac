package dev.carillon.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition helper against the real kernel: a process in a namespace reaches servers on this
 * host through its veth, a cut silences one port in both directions (a connect times out, it is not
 * refused) while another port stays reachable, and a heal restores it. Skipped, with the reason
 * logged, where namespaces cannot be made (not root, no iproute2); CI runs as root.
 */
@Timeout(120)
class NetworkNamespacesTest {
  private static final Logger log = LoggerFactory.getLogger(NetworkNamespacesTest.class);

  private NetworkNamespaces lab;
  private ServerSocket first;
  private ServerSocket second;
  private Thread acceptor;

  @BeforeEach
  void lab() throws IOException {
    Optional<String> why = NetworkNamespaces.unavailableReason();
    assertThat(why.isPresent() && System.getenv(FaultSuiteIT.REQUIRE_NAMESPACES) != null)
        .as("%s is set but namespaces are unavailable: %s", FaultSuiteIT.REQUIRE_NAMESPACES, why)
        .isFalse();
    why.ifPresent(r -> log.warn("Skipping the network namespace test: {}", r));
    assumeTrue(why.isEmpty(), () -> "network namespaces unavailable: " + why.orElse(""));
    lab = NetworkNamespaces.create();
    InetAddress at = InetAddress.getByName(lab.serverAddress());
    first = new ServerSocket(0, 50, at);
    second = new ServerSocket(0, 50, at);
    acceptor = new Thread(() -> serve(first), "accept-first");
    acceptor.setDaemon(true);
    acceptor.start();
    Thread other = new Thread(() -> serve(second), "accept-second");
    other.setDaemon(true);
    other.start();
  }

  private static void serve(ServerSocket server) {
    while (!server.isClosed()) {
      try (Socket s = server.accept();
          OutputStream out = s.getOutputStream()) {
        out.write("hi\n".getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        return;
      }
    }
  }

  @AfterEach
  void close() throws IOException {
    if (lab != null) {
      first.close();
      second.close();
      acceptor.interrupt();
      lab.close();
    }
  }

  /** Exit status and output of a 3-second-bounded TCP read from inside {@code host}. */
  private String readFrom(NetworkNamespaces.Host host, int port) throws Exception {
    Process p =
        new ProcessBuilder(
                host.wrap(
                    List.of(
                        "timeout",
                        "3",
                        "bash",
                        "-c",
                        "exec 3<>/dev/tcp/" + lab.serverAddress() + "/" + port + "; cat <&3")))
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return p.exitValue()
        + " "
        + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
  }

  @Test
  void a_cut_silences_one_port_both_ways_until_healed() throws Exception {
    NetworkNamespaces.Host worker = lab.host("worker-1");
    assertThat(worker.address()).startsWith("10.78.");
    assertThat(readFrom(worker, first.getLocalPort())).isEqualTo("0 hi");

    lab.cut(worker, first.getLocalPort());
    // 124: timeout(1) ended it; the SYN went nowhere, nothing refused it.
    assertThat(readFrom(worker, first.getLocalPort())).startsWith("124");
    assertThat(readFrom(worker, second.getLocalPort())).isEqualTo("0 hi");

    lab.heal(worker, first.getLocalPort());
    assertThat(readFrom(worker, first.getLocalPort())).isEqualTo("0 hi");
  }

  @Test
  void a_cut_also_silences_what_the_server_sends_on_an_open_connection() throws Exception {
    NetworkNamespaces.Host worker = lab.host("worker-2");
    CountDownLatch cut = new CountDownLatch(1);
    try (ServerSocket third = new ServerSocket(0, 50, InetAddress.getByName(lab.serverAddress()))) {
      Thread talker =
          new Thread(
              () -> {
                try (Socket s = third.accept();
                    OutputStream out = s.getOutputStream()) {
                  out.write("hi\n".getBytes(StandardCharsets.UTF_8));
                  out.flush();
                  if (cut.await(30, TimeUnit.SECONDS)) {
                    out.write("again\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                  }
                } catch (IOException e) {
                  // the client went away: nothing to send
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              "talker");
      talker.setDaemon(true);
      talker.start();
      Process client =
          new ProcessBuilder(
                  worker.wrap(
                      List.of(
                          "bash",
                          "-c",
                          "exec 3<>/dev/tcp/"
                              + lab.serverAddress()
                              + "/"
                              + third.getLocalPort()
                              + "; read -r a <&3; echo \"got:$a\"; read -r -t 4 b <&3;"
                              + " echo \"second:$b\"")))
              .redirectErrorStream(true)
              .start();
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
      assertThat(lines.readLine()).isEqualTo("got:hi");

      lab.cut(worker, third.getLocalPort());
      cut.countDown();

      // Without the inbound rule the server's segment would arrive (only its ACK would be lost).
      assertThat(lines.readLine()).isEqualTo("second:");
      assertThat(client.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void a_process_started_in_a_namespace_keeps_its_own_pid_for_signals() throws Exception {
    NetworkNamespaces.Host host = lab.host("trigger-1");
    Process p =
        new ProcessBuilder(host.wrap(List.of("sh", "-c", "echo $$")))
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String printed = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();

    assertThat(printed).isEqualTo(Long.toString(p.pid()));
  }
}
