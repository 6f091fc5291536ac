package dev.carillon.retry;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the retry service: {@code retry-service [--config FILE]}. Settings come from the optional
 * properties file with environment overrides (see {@link RetrySettings}); the effective
 * configuration is logged once with secrets masked. SIGTERM (or Ctrl-C) stops it cleanly: it leaves
 * the election first, so a standby takes over at once.
 */
public final class RetryMain {
  private static final Logger log = LoggerFactory.getLogger(RetryMain.class);

  private RetryMain() {}

  public static void main(String[] args) throws InterruptedException {
    Optional<Path> file;
    try {
      file = configFile(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.err.println("usage: retry-service [--config FILE]");
      System.exit(2);
      return;
    }
    RetryService service;
    try {
      service = RetryService.start(Config.load(file, System.getenv()), Clock.systemUTC());
    } catch (ConfigException e) {
      log.error("Configuration error: {}", e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("Stopping the retry service");
                  service.close();
                  stopped.countDown();
                },
                "retry-shutdown"));
    stopped.await();
  }

  static Optional<Path> configFile(String[] args) {
    if (args.length == 0) {
      return Optional.empty();
    }
    if (args.length == 2 && args[0].equals("--config")) {
      return Optional.of(Path.of(args[1]));
    }
    if (args.length == 1 && args[0].startsWith("--config=")) {
      return Optional.of(Path.of(args[0].substring("--config=".length())));
    }
    throw new IllegalArgumentException("unexpected arguments: " + String.join(" ", args));
  }
}
