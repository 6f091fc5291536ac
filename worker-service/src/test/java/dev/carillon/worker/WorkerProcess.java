package dev.carillon.worker;

import dev.carillon.config.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A worker as a real child JVM ({@link WorkerMain} on this test's class path, configured only by
 * {@code CARILLON_*} variables), for what only a process shows: its exit code, {@code kill -9}, a
 * restart under the same id. Its output goes to {@code target/<id>-<n>.log}.
 */
final class WorkerProcess implements AutoCloseable {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  final String workerId;
  final int adminPort;
  final Process process;
  final Instant startedAt;
  final Path log;

  private WorkerProcess(String workerId, int adminPort, Process process, Instant at, Path log) {
    this.workerId = workerId;
    this.adminPort = adminPort;
    this.process = process;
    this.startedAt = at;
    this.log = log;
  }

  /**
   * Starts a worker with {@code config} (keys as in {@link WorkerSettings}; {@code admin.port} is
   * set here unless given).
   */
  static WorkerProcess start(Map<String, String> config) {
    String workerId = config.get("instance.id");
    int port =
        config.containsKey("admin.port") ? Integer.parseInt(config.get("admin.port")) : freePort();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "-Xmx128m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"),
            "-cp",
            System.getProperty("java.class.path"),
            WorkerMain.class.getName()));
    Path log;
    try {
      Path dir = Path.of("target", "worker-processes");
      Files.createDirectories(dir);
      log = Files.createTempFile(dir, workerId + "-", ".log");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("CARILLON_"));
    config.forEach((k, v) -> pb.environment().put(Config.envName(k), v));
    pb.environment().put("CARILLON_ADMIN_PORT", Integer.toString(port));
    try {
      Instant at = Instant.now();
      return new WorkerProcess(workerId, port, pb.start(), at, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start worker " + workerId, e);
    }
  }

  /** {@code kill -9}: no shutdown hook, no release, no leaving the group. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** The exit code, or empty while the process runs. */
  Optional<Integer> exitCode() {
    return process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
  }

  /** The body of {@code /health/ready}, or empty when the port does not answer. */
  Optional<String> ready() {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/health/ready"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return Optional.of(r.body());
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The process's output so far, for failure messages. */
  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "<cannot read " + log + ": " + e + ">";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill9();
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
