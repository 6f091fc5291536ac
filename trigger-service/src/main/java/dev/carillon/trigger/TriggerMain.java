package dev.carillon.trigger;

import dev.carillon.config.ServiceLauncher;
import java.time.Clock;

/**
 * {@code java -jar trigger-service-all.jar [--config FILE]}: reads the optional properties file and
 * the environment ({@code CARILLON_*}), starts the trigger and stops it cleanly on SIGTERM/SIGINT.
 * Exit code 2 for a configuration error (see {@link ServiceLauncher}).
 */
public final class TriggerMain {
  private TriggerMain() {}

  public static void main(String[] args) throws InterruptedException {
    ServiceLauncher.run("trigger", args, config -> TriggerService.start(config, Clock.systemUTC()));
  }
}
