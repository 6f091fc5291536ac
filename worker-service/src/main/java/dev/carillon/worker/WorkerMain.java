package dev.carillon.worker;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.worker.plugin.PluginException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -cp ... dev.carillon.worker.WorkerMain [--config FILE]}: reads the optional
 * properties file and the {@code CARILLON_*} environment, logs the effective configuration once
 * (secrets masked), runs until SIGTERM or SIGINT and then shuts down gracefully. Exit code 2 means
 * bad configuration or plugins.
 */
public final class WorkerMain {
  private static final Logger log = LoggerFactory.getLogger(WorkerMain.class);

  private WorkerMain() {}

  /**
   * Runs the worker.
   *
   * @param args {@code --config FILE}, optional
   */
  public static void main(String[] args) throws InterruptedException {
    Optional<Path> file = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--config") && i + 1 < args.length) {
        file = Optional.of(Path.of(args[++i]));
      } else {
        System.err.println("usage: WorkerMain [--config FILE]; unknown argument " + args[i]);
        System.exit(2);
      }
    }
    WorkerService service;
    try {
      Config config = Config.load(file, System.getenv());
      log.info("Effective configuration: {}", WorkerSettings.from(config).describe());
      service = WorkerService.start(config);
    } catch (ConfigException | PluginException e) {
      log.error("Cannot start the worker: {}", e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  service.close();
                  stopped.countDown();
                },
                "carillon-worker-shutdown"));
    stopped.await();
  }
}
