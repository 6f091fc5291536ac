package dev.carillon.worker;

import java.util.concurrent.ThreadFactory;

/**
 * Thread factories for the worker's own executors. Daemon threads: a plugin that never returns, or
 * a helper thread left behind by a failed start, must not keep the worker's JVM alive after
 * shutdown, which waits for what matters itself.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Daemon threads, each named {@code name}. */
  public static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}
