package dev.carillon.worker.run;

import dev.carillon.worker.DaemonThreads;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The threads run slots run on: platform threads by default, or virtual threads when {@code
 * worker.virtual-threads} asks for them and the JDK has them (Java 21 and later). Carillon is built
 * for Java 17, so the Java 21 API ({@code Thread.ofVirtual()}, {@code
 * Executors.newThreadPerTaskExecutor}) is looked up at run time; on an older JDK the setting falls
 * back to platform threads and says so once in the log.
 *
 * <p>What virtual threads change: a run that waits (an http agent's call, an exec agent's process,
 * a plugin's I/O) holds no platform thread and its 512 KiB-1 MiB stack, so a worker can hold many
 * more waiting runs. What they do not: {@code worker.concurrency} still bounds the runs at once; a
 * plugin that computes holds a carrier thread as long as it computes; and on Java 21 to 23 a plugin
 * that blocks inside {@code synchronized} pins its carrier thread. Off by default until measured
 * with real agents.
 */
public final class RunThreads {
  private static final Logger log = LoggerFactory.getLogger(RunThreads.class);

  private RunThreads() {}

  /**
   * The executor of run threads named {@code name} (virtual ones are numbered after it).
   *
   * @param virtual whether virtual threads were asked for ({@code worker.virtual-threads})
   */
  public static ExecutorService executor(String name, boolean virtual) {
    if (virtual) {
      Optional<ExecutorService> v = virtualExecutor(name + "-");
      if (v.isPresent()) {
        log.info(
            "Run slots use virtual threads (worker.virtual-threads=true, Java {})",
            Runtime.version().feature());
        return v.get();
      }
      log.warn(
          "worker.virtual-threads=true, but Java {} has no virtual threads (Java 21 or later has"
              + " them): run slots use platform threads",
          Runtime.version().feature());
    }
    // Daemon, so that a plugin that never ends does not keep the JVM alive after shutdown.
    return Executors.newCachedThreadPool(DaemonThreads.named(name));
  }

  /** Whether this JDK has virtual threads. */
  public static boolean available() {
    return virtualFactory("probe-").isPresent();
  }

  /** A new virtual thread per task, or empty when the JDK has none. */
  static Optional<ExecutorService> virtualExecutor(String prefix) {
    return virtualFactory(prefix)
        .flatMap(
            factory -> {
              try {
                MethodHandle perTask =
                    MethodHandles.publicLookup()
                        .findStatic(
                            Executors.class,
                            "newThreadPerTaskExecutor",
                            MethodType.methodType(ExecutorService.class, ThreadFactory.class));
                return Optional.of((ExecutorService) perTask.invoke(factory));
              } catch (Throwable e) {
                log.debug("No thread-per-task executor: {}", e.toString());
                return Optional.empty();
              }
            });
  }

  /** {@code Thread.ofVirtual().name(prefix, 0).factory()}, or empty before Java 21. */
  static Optional<ThreadFactory> virtualFactory(String prefix) {
    try {
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      Class<?> builder = Class.forName("java.lang.Thread$Builder");
      Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
      Object b =
          lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual)).invoke();
      b =
          lookup
              .findVirtual(
                  builder, "name", MethodType.methodType(builder, String.class, long.class))
              .invoke(b, prefix, 0L);
      Object factory =
          lookup
              .findVirtual(builder, "factory", MethodType.methodType(ThreadFactory.class))
              .invoke(b);
      return Optional.of((ThreadFactory) factory);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      return Optional.empty();
    } catch (Throwable e) {
      log.debug("Virtual threads not usable: {}", e.toString());
      return Optional.empty();
    }
  }
}
