package dev.carillon.worker;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Test-only handler {@code ledger-probe}: a ledger of real executions, independent of the
 * scheduler's bookkeeping. Each run appends when it started and, in a {@code finally}, when it
 * ended (however it ended: returned, interrupted, cancelled). Attempt 1 waits, interruptibly, for
 * up to ten minutes; later attempts succeed at once.
 */
public final class LedgerProbe implements AgentTask {
  /** One execution: its task, window and attempt, and when it ran (this JVM's clock). */
  public record Entry(String taskId, String windowKey, int attempt, Instant start, Instant end) {}

  private static final ConcurrentLinkedQueue<Entry> LEDGER = new ConcurrentLinkedQueue<>();
  private static final ConcurrentLinkedQueue<Entry> STARTED = new ConcurrentLinkedQueue<>();

  /** The executions of {@code taskId} that ended, in the order they ended. */
  public static List<Entry> ended(String taskId) {
    return LEDGER.stream().filter(e -> e.taskId().equals(taskId)).toList();
  }

  /** The executions of {@code taskId} that started (their end not known yet). */
  public static List<Entry> started(String taskId) {
    return STARTED.stream().filter(e -> e.taskId().equals(taskId)).toList();
  }

  @Override
  public String type() {
    return "ledger-probe";
  }

  @Override
  public AgentResult run(AgentContext context) throws InterruptedException {
    Instant start = Instant.now();
    STARTED.add(new Entry(context.taskId(), context.windowKey(), context.attempt(), start, null));
    try {
      if (context.attempt() == 1) {
        // The work: a long call that honours interrupts, as the plugin API asks.
        Thread.sleep(600_000);
      }
      return AgentResult.of("attempt " + context.attempt());
    } finally {
      LEDGER.add(
          new Entry(
              context.taskId(), context.windowKey(), context.attempt(), start, Instant.now()));
    }
  }
}
