package dev.carillon.retry;

import dev.carillon.config.ServiceLauncher;
import java.time.Clock;

/**
 * Runs the retry service: {@code java -jar retry-service-all.jar [--config FILE]}. Settings come
 * from the optional properties file with environment overrides (see {@link RetrySettings}); the
 * effective configuration is logged once with secrets masked. SIGTERM (or Ctrl-C) stops it cleanly:
 * it leaves the election first, so a standby takes over at once.
 */
public final class RetryMain {
  private RetryMain() {}

  public static void main(String[] args) throws InterruptedException {
    ServiceLauncher.run(
        "retry service", args, config -> RetryService.start(config, Clock.systemUTC()));
  }
}
