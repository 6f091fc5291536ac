package dev.carillon.worker.run;

import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.store.Outcome;

/**
 * A Java plugin run in this process, on the pool thread that calls {@link #execute}. Stopping it
 * sets the context's cancellation flag first (so that code woken by the interrupt sees it), then
 * interrupts that thread, but only while it still runs this plugin: pool threads move on to other
 * runs. A stop that comes before the plugin starts makes it start with the flag and the interrupt
 * already set.
 */
final class PluginExecution implements AgentExecution {
  private final AgentTask task;
  private final WorkerAgentContext context;
  private final int maxSummaryBytes;

  // Guarded by this: the thread running the plugin (null before and after), and whether a stop
  // came.
  private Thread thread;
  private boolean stopped;

  /**
   * @param task the plugin
   * @param context what the plugin sees of its run
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   */
  PluginExecution(AgentTask task, WorkerAgentContext context, int maxSummaryBytes) {
    this.task = task;
    this.context = context;
    this.maxSummaryBytes = maxSummaryBytes;
  }

  @Override
  public Outcome execute() {
    synchronized (this) {
      thread = Thread.currentThread();
      if (stopped) {
        thread.interrupt();
      }
    }
    try {
      AgentResult result = task.run(context);
      return result == null
          ? Outcome.failure(
              "plugin " + task.getClass().getName() + " returned null instead of a result", false)
          : Outcomes.success(result, maxSummaryBytes);
    } catch (Throwable thrown) {
      // Errors too (StackOverflowError, OutOfMemoryError, AssertionError): they fail the instance,
      // not the worker.
      return Outcomes.failure(thrown);
    } finally {
      synchronized (this) {
        thread = null;
      }
    }
  }

  @Override
  public void stop() {
    context.cancel();
    synchronized (this) {
      stopped = true;
      if (thread != null) {
        thread.interrupt();
      }
    }
  }
}
