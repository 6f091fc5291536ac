package dev.carillon.worker;

import dev.carillon.config.ServiceLauncher;

/**
 * {@code java -jar worker-service-all.jar [--config FILE]}: reads the optional properties file and
 * the environment ({@code CARILLON_*}), logs the effective configuration once (secrets masked),
 * runs until SIGTERM or SIGINT and then shuts down gracefully (drain, then release). Exit code 2
 * means bad configuration or plugins (see {@link ServiceLauncher}).
 */
public final class WorkerMain {
  private WorkerMain() {}

  public static void main(String[] args) throws InterruptedException {
    ServiceLauncher.run("worker", args, WorkerService::start);
  }
}
