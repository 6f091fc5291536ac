package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@code worker.virtual-threads}: honoured where the JDK has virtual threads, a warning and
 * platform threads where it does not. Each case runs on the JDKs it applies to (the build runs on
 * Java 17; run with {@code -Djvm=<a Java 21+ java>} for the other).
 */
class RunThreadsTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger(RunThreads.class);
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

  @BeforeEach
  void capture() {
    logged.start();
    logger.addAppender(logged);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logged);
  }

  @Test
  void off_by_default_run_threads_are_platform_daemon_threads_and_nothing_is_logged()
      throws Exception {
    Thread t = threadOf(RunThreads.executor("carillon-run-w1", false));

    assertThat(t.getName()).isEqualTo("carillon-run-w1");
    assertThat(t.isDaemon()).isTrue();
    assertThat(isVirtual(t)).isFalse();
    assertThat(logged.list).isEmpty();
  }

  @Test
  void asked_for_on_a_jdk_without_virtual_threads_it_warns_once_and_uses_platform_threads()
      throws Exception {
    assumeTrue(Runtime.version().feature() < 21, "this JDK has virtual threads");
    assertThat(RunThreads.available()).isFalse();

    Thread t = threadOf(RunThreads.executor("carillon-run-w1", true));

    assertThat(t.getName()).isEqualTo("carillon-run-w1");
    assertThat(t.isDaemon()).isTrue();
    assertThat(logged.list)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getLevel()).isEqualTo(Level.WARN);
              assertThat(e.getFormattedMessage())
                  .isEqualTo(
                      "worker.virtual-threads=true, but Java "
                          + Runtime.version().feature()
                          + " has no virtual threads (Java 21 or later has them): run slots use"
                          + " platform threads");
            });
  }

  @Test
  void asked_for_on_a_jdk_with_virtual_threads_run_threads_are_virtual() throws Exception {
    assumeTrue(Runtime.version().feature() >= 21, "this JDK has no virtual threads");
    assertThat(RunThreads.available()).isTrue();

    Thread t = threadOf(RunThreads.executor("carillon-run-w1", true));

    assertThat(isVirtual(t)).isTrue();
    assertThat(t.getName()).isEqualTo("carillon-run-w1-0");
    assertThat(logged.list)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getFormattedMessage())
                    .isEqualTo(
                        "Run slots use virtual threads (worker.virtual-threads=true, Java "
                            + Runtime.version().feature()
                            + ")"));
  }

  /** The thread the executor runs a task on; the executor is shut down after. */
  private static Thread threadOf(ExecutorService executor) throws Exception {
    try {
      return executor.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
    } finally {
      executor.shutdown();
      assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** {@code Thread.isVirtual()}, false before Java 21. */
  private static boolean isVirtual(Thread t) throws Exception {
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
