package dev.carillon.worker;

import dev.carillon.agents.SleepAgent;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.RunCancelledException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Test-only handler {@code counting}: counts executions and concurrency per task id, then behaves
 * like the {@code sleep} agent with the same params. With {@code "returnAnyway":true} it returns a
 * result even after it was cancelled, to prove that the worker discards it.
 */
public final class CountingAgent implements AgentTask {
  /** What the runs of one task did. */
  public static final class Probe {
    public final AtomicInteger executions = new AtomicInteger();
    public final AtomicInteger current = new AtomicInteger();
    public final AtomicInteger max = new AtomicInteger();
    public final AtomicInteger sawCancellation = new AtomicInteger();
    public final AtomicInteger finished = new AtomicInteger();

    /** The context of the latest run, as the worker built it. */
    public final AtomicReference<AgentContext> lastContext = new AtomicReference<>();
  }

  private static final ConcurrentHashMap<String, Probe> PROBES = new ConcurrentHashMap<>();

  /** The probe of {@code taskId}; tests use unique task ids. */
  public static Probe probe(String taskId) {
    return PROBES.computeIfAbsent(taskId, k -> new Probe());
  }

  private final SleepAgent sleep = new SleepAgent();

  @Override
  public String type() {
    return "counting";
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    Probe p = probe(context.taskId());
    p.lastContext.set(context);
    p.executions.incrementAndGet();
    int now = p.current.incrementAndGet();
    p.max.accumulateAndGet(now, Math::max);
    try {
      return sleep.run(context);
    } catch (InterruptedException | RunCancelledException e) {
      if (context.isCancelled()) {
        p.sawCancellation.incrementAndGet();
      }
      if (context.paramsJson().contains("\"returnAnyway\":true")) {
        return AgentResult.of("stale result of attempt " + context.attempt());
      }
      throw e;
    } finally {
      p.current.decrementAndGet();
      p.finished.incrementAndGet();
    }
  }
}
