package dev.carillon.trigger;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -cp ... dev.carillon.trigger.TriggerMain [--config FILE]}: reads the optional
 * properties file and the environment ({@code CARILLON_*}), starts the trigger and stops it cleanly
 * on SIGTERM/SIGINT. Exit code 2 for a configuration error.
 */
public final class TriggerMain {
  private static final Logger log = LoggerFactory.getLogger(TriggerMain.class);

  private TriggerMain() {}

  public static void main(String[] args) throws InterruptedException {
    Optional<Path> file = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        file = Optional.of(Path.of(args[++i]));
      } else {
        System.err.println("usage: TriggerMain [--config FILE]");
        System.exit(2);
      }
    }
    TriggerService service;
    try {
      service = TriggerService.start(Config.load(file, System.getenv()), Clock.systemUTC());
    } catch (ConfigException e) {
      log.error("Invalid configuration: {}", e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  log.info("Shutting down the trigger");
                  service.close();
                  stopped.countDown();
                },
                "trigger-shutdown"));
    stopped.await();
  }
}
