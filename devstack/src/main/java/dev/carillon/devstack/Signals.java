package dev.carillon.devstack;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** POSIX signals to server processes, through {@code kill(1)} (Linux and macOS). */
final class Signals {
  private Signals() {}

  /**
   * Sends {@code signal} (e.g. {@code STOP}, {@code CONT}, {@code INT}) to every process in {@code
   * pids}.
   *
   * @return whether {@code kill} reported success for all of them
   */
  static boolean send(String signal, Collection<Long> pids) {
    if (pids.isEmpty()) {
      return true;
    }
    List<String> command = new ArrayList<>();
    command.add("kill");
    command.add("-" + signal);
    pids.forEach(p -> command.add(Long.toString(p)));
    try {
      Process kill =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS)) {
        kill.destroyForcibly();
        return false;
      }
      return kill.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Whether {@code process} ended within {@code timeout}. */
  static boolean awaitExit(ProcessHandle process, Duration timeout) {
    try {
      process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (TimeoutException e) {
      return false;
    } catch (ExecutionException e) {
      return !process.isAlive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
