package dev.carillon.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Carillon worker as a child JVM ({@code dev.carillon.worker.WorkerMain} on this JVM's class
 * path), configured only through {@code CARILLON_*} environment variables, so that a test can kill
 * it with SIGKILL mid-run. Its plugins are the class path's ({@code META-INF/services}).
 */
final class WorkerProcess implements AutoCloseable {
  /** How long {@link #kill} waits for the process to be gone. */
  static final Duration EXIT_WAIT = Duration.ofSeconds(30);

  private final Process process;

  private WorkerProcess(Process process) {
    this.process = process;
  }

  /**
   * Starts the worker.
   *
   * @param config worker configuration keys ({@code db.url}, {@code worker.topic}, ...)
   * @param log where its output goes
   */
  static WorkerProcess start(Map<String, String> config, Path log) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add("dev.carillon.worker.WorkerMain");
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    config.forEach((k, v) -> pb.environment().put(envName(k), v));
    try {
      return new WorkerProcess(pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a worker process: " + command, e);
    }
  }

  /** The environment variable the worker reads {@code key} from (see {@code Config}). */
  static String envName(String key) {
    return "CARILLON_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Kills the process with SIGKILL (kill -9: no shutdown hook, no drain, no release) and waits for
   * it to be gone.
   *
   * @throws IllegalStateException when it is still alive after {@link #EXIT_WAIT}
   */
  void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(EXIT_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException("worker process " + pid() + " survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing worker " + pid(), e);
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }
}
