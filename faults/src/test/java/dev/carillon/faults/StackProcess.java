package dev.carillon.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code DevStackMain --control} as a child process: PostgreSQL, Kafka and ZooKeeper in one JVM,
 * restarted on command on the same ports so that the services must reconnect by themselves.
 */
final class StackProcess implements AutoCloseable {
  /** How the services reach the stack. */
  record Endpoints(String dbUrl, String dbUser, String dbPassword, String kafka, String zk) {
    /** PostgreSQL's port, from {@code jdbc:postgresql://HOST:PORT/DB}. */
    int postgresPort() {
      String hostPort =
          dbUrl.substring(dbUrl.indexOf("//") + 2, dbUrl.indexOf('/', dbUrl.indexOf("//") + 2));
      return port(hostPort);
    }

    int kafkaPort() {
      return port(kafka);
    }

    int zooKeeperPort() {
      return port(zk);
    }

    private static int port(String hostPort) {
      return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }
  }

  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

  private final Process process;
  private final Writer control;
  private final BlockingQueue<String> lines;
  private final Endpoints endpoints;

  private StackProcess(
      Process process, Endpoints endpoints, Writer control, BlockingQueue<String> lines) {
    this.process = process;
    this.lines = lines;
    this.endpoints = endpoints;
    this.control = control;
  }

  /**
   * Starts the stack.
   *
   * @param options more {@code DevStackMain} arguments, e.g. {@code --listen-address IP}
   */
  static StackProcess start(Path dataDir, Path log, List<String> options) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Services.javaBin(),
                "-Xmx768m",
                "-XX:+UseSerialGC",
                "-Djava.io.tmpdir=" + dataDir,
                "-Dot.epg.working-dir=" + dataDir.resolve("epg"),
                "-cp",
                System.getProperty("java.class.path"),
                "dev.carillon.devstack.DevStackMain",
                "--data-dir",
                dataDir.toString(),
                "--fresh",
                "--control"));
    cmd.addAll(options);
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      BlockingQueue<String> queue = new LinkedBlockingQueue<>();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(
                        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                  String line;
                  while ((line = r.readLine()) != null) {
                    queue.add(line.trim());
                  }
                } catch (IOException e) {
                  queue.add("error stdout: " + e.getMessage());
                }
              },
              "devstack-stdout");
      reader.setDaemon(true);
      reader.start();
      Map<String, String> values = new HashMap<>();
      long end = System.nanoTime() + START_TIMEOUT.toNanos();
      while (!values.containsKey("carillon.zookeeper.connect")) {
        String line = queue.poll(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null || !p.isAlive() && queue.isEmpty()) {
          p.destroyForcibly();
          throw new IllegalStateException("DevStackMain did not start in time; see " + log);
        }
        int eq = line.indexOf('=');
        if (line.startsWith("carillon.") && eq > 0) {
          values.put(line.substring(0, eq), line.substring(eq + 1));
        }
      }
      Endpoints e =
          new Endpoints(
              values.get("carillon.db.url"),
              values.get("carillon.db.user"),
              values.get("carillon.db.password"),
              values.get("carillon.kafka.bootstrap"),
              values.get("carillon.zookeeper.connect"));
      return new StackProcess(
          p, e, new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8), queue);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Endpoints endpoints() {
    return endpoints;
  }

  /** The stack JVM's process id (PostgreSQL runs in processes of its own under it). */
  long pid() {
    return process.pid();
  }

  /** Sends one control command and waits for its answer. */
  void command(String command) {
    try {
      control.write(command + "\n");
      control.flush();
      long end = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
      while (true) {
        String line = lines.poll(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw new IllegalStateException("devstack did not answer '" + command + "' in time");
        }
        if (line.equals("ok " + command)) {
          return;
        }
        if (line.startsWith("error " + command)) {
          throw new IllegalStateException("devstack: " + line);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try {
      // End of input makes DevStackMain close the servers cleanly and exit.
      control.close();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (IOException e) {
      process.destroyForcibly();
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
