package dev.carillon.config;

import dev.carillon.logging.LogFormat;
import dev.carillon.model.CarillonException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way a Carillon service process starts: {@code [--config FILE]} plus {@code CARILLON_*}
 * environment, start, run until SIGTERM/SIGINT, then close (which drains gracefully).
 *
 * <p>Exit codes: 2 for bad arguments, configuration or plugins (a {@link CarillonException} or
 * {@link IllegalArgumentException} at start — nothing was started), 1 for any other start failure
 * (usually a dependency that cannot be reached, named in the log line).
 */
public final class ServiceLauncher {
  private static final Logger log = LoggerFactory.getLogger(ServiceLauncher.class);

  /** Starts a service from its configuration. */
  @FunctionalInterface
  public interface Starter {
    AutoCloseable start(Config config) throws Exception;
  }

  private ServiceLauncher() {}

  /**
   * The optional configuration file named by {@code --config FILE}.
   *
   * @throws IllegalArgumentException naming the argument when it is not understood
   */
  public static Optional<Path> configFile(String service, String[] args) {
    Optional<Path> file = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        file = Optional.of(Path.of(args[++i]));
      } else {
        throw new IllegalArgumentException(
            "unknown argument '" + args[i] + "'; usage: " + service + " [--config FILE]");
      }
    }
    return file;
  }

  /** Runs {@code service} until the JVM is asked to stop; exits the JVM on a failed start. */
  public static void run(String service, String[] args, Starter starter)
      throws InterruptedException {
    try {
      LogFormat.check(System.getenv());
    } catch (ConfigException e) {
      // Not through the logger: with an unknown format it has no appender and prints nothing.
      System.err.println("Cannot start the " + service + ": " + e.getMessage());
      System.exit(2);
      return;
    }
    AutoCloseable running;
    try {
      running = starter.start(Config.load(configFile(service, args), Map.copyOf(System.getenv())));
    } catch (CarillonException | IllegalArgumentException e) {
      log.error("Cannot start the {}: {}", service, e.getMessage());
      System.exit(2);
      return;
    } catch (Exception e) {
      log.error("Cannot start the {}: {}", service, e.toString(), e);
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("Shutting down the {}", service);
                  try {
                    running.close();
                  } catch (Exception e) {
                    log.warn("Shutting down the {} failed: {}", service, e.toString());
                  }
                  stopped.countDown();
                },
                service + "-shutdown"));
    stopped.await();
  }
}
