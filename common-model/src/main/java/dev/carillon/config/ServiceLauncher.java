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
 * The one way a Carillon service process starts: {@code [migrate|create-topics] [--config FILE]}
 * plus {@code CARILLON_*} environment. Without a command: start, run until SIGTERM/SIGINT, then
 * close (which drains gracefully). With one, run that deploy step of {@link Setup} and exit, so
 * every service image can serve as the migrate and topics one-shot.
 *
 * <p>Exit codes: 2 for bad arguments, configuration or plugins (a {@link CarillonException} or
 * {@link IllegalArgumentException} at start — nothing was started), 1 for any other start failure
 * (usually a dependency that cannot be reached, named in the log line). A service that is {@link
 * SelfStopping} may end the process later with a code of its own; it is closed first, as on
 * SIGTERM.
 */
public final class ServiceLauncher {
  private static final Logger log = LoggerFactory.getLogger(ServiceLauncher.class);

  /** Starts a service from its configuration. */
  @FunctionalInterface
  public interface Starter {
    AutoCloseable start(Config config) throws Exception;
  }

  /** What the process was asked to do. */
  public enum Command {
    /** Run the service (no command given). */
    SERVE,
    /** {@code migrate}: {@link Setup#migrate}, then exit. */
    MIGRATE,
    /** {@code create-topics}: {@link Setup#createTopics}, then exit. */
    CREATE_TOPICS
  }

  /** The parsed command line. */
  public record Invocation(Command command, Optional<Path> configFile) {}

  private ServiceLauncher() {}

  /**
   * Parses {@code [migrate|create-topics] [--config FILE]}.
   *
   * @throws IllegalArgumentException naming the argument when it is not understood
   */
  public static Invocation parse(String service, String[] args) {
    Command command = Command.SERVE;
    Optional<Path> file = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        file = Optional.of(Path.of(args[++i]));
      } else if (i == 0 && args[i].equals("migrate")) {
        command = Command.MIGRATE;
      } else if (i == 0 && args[i].equals("create-topics")) {
        command = Command.CREATE_TOPICS;
      } else {
        throw new IllegalArgumentException(
            "unknown argument '"
                + args[i]
                + "'; usage: "
                + service
                + " [migrate|create-topics] [--config FILE]");
      }
    }
    return new Invocation(command, file);
  }

  /** The optional configuration file named by {@code --config FILE}. */
  public static Optional<Path> configFile(String service, String[] args) {
    return parse(service, args).configFile();
  }

  /**
   * Runs {@code service} until the JVM is asked to stop, or runs the deploy step named on the
   * command line and exits; exits the JVM on a failed start or step.
   */
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
      Invocation invocation = parse(service, args);
      Config config = Config.load(invocation.configFile(), Map.copyOf(System.getenv()));
      if (invocation.command() != Command.SERVE) {
        System.exit(runStep(invocation.command(), config));
        return;
      }
      running = starter.start(config);
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
    closeOnShutdown(service, running, stopped);
    stopped.await();
  }

  /**
   * Runs one deploy step.
   *
   * @return the exit code: 0 done, 2 bad configuration or a deploy mistake it names (a topic too
   *     small, a schema it cannot migrate), 1 anything else (a dependency that cannot be reached)
   */
  public static int runStep(Command command, Config config) {
    try {
      switch (command) {
        case MIGRATE -> Setup.migrate(config);
        case CREATE_TOPICS -> Setup.createTopics(config);
        case SERVE -> throw new IllegalArgumentException("SERVE is not a deploy step");
      }
      return 0;
    } catch (CarillonException | IllegalArgumentException e) {
      log.error("{} failed: {}", step(command), e.getMessage());
      return 2;
    } catch (RuntimeException e) {
      log.error("{} failed: {}", step(command), e.toString(), e);
      return 1;
    }
  }

  private static String step(Command command) {
    return command.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  private static void closeOnShutdown(
      String service, AutoCloseable running, CountDownLatch stopped) {
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
    if (running instanceof SelfStopping self) {
      self.exitRequested()
          .thenAccept(
              code -> {
                log.error("The {} stops itself with exit code {}", service, code);
                // On its own thread: exit() runs the shutdown hook and waits for it.
                new Thread(() -> System.exit(code), service + "-exit").start();
              });
    }
  }
}
