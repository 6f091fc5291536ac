package dev.carillon.worker;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import dev.carillon.api.RunCancelledException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The worker tests' handler {@code counting}: counts executions and concurrency per task id, then
 * does what its params say (the worker's tests do not use the example agents, which are a plugin
 * module tested with {@code carillon-testkit}, itself built on this worker).
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>meaning</th></tr>
 *   <tr><td>gate</td><td>wait until the test opens {@link #gate(String) the latch of that name};
 *       a test that needs the run still going at a later step opens it after that step</td></tr>
 *   <tr><td>duration</td><td>work this long ({@code 250ms}, {@code 2s}) where only throughput
 *       matters; default 0</td></tr>
 *   <tr><td>ignoreInterrupts</td><td>keep waiting through interrupts (a misbehaving agent) and
 *       restore the flag afterwards</td></tr>
 *   <tr><td>returnAnyway</td><td>return a result even after the run was cancelled, to prove that
 *       the worker discards it</td></tr>
 *   <tr><td>failFirst</td><td>fail attempts 1..N ({@code nonRetryable}: permanently)</td></tr>
 *   <tr><td>throwError</td><td>throw a {@link StackOverflowError}</td></tr>
 *   <tr><td>summary, repeat</td><td>return {@code summary} repeated {@code repeat} times</td></tr>
 *   <tr><td>progress</td><td>report this progress ({@code AgentContext.heartbeat}) first</td></tr>
 * </table>
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

    /** The logging context (MDC) the latest run's agent saw on its thread. */
    public final AtomicReference<java.util.Map<String, String>> lastMdc = new AtomicReference<>();
  }

  private static final ConcurrentHashMap<String, Probe> PROBES = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, CountDownLatch> GATES = new ConcurrentHashMap<>();

  /** The probe of {@code taskId}; tests use unique task ids. */
  public static Probe probe(String taskId) {
    return PROBES.computeIfAbsent(taskId, k -> new Probe());
  }

  /** The latch runs with {@code "gate":"name"} wait for; the test calls {@code countDown()}. */
  public static CountDownLatch gate(String name) {
    return GATES.computeIfAbsent(name, k -> new CountDownLatch(1));
  }

  @Override
  public String type() {
    return "counting";
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    Probe p = probe(context.taskId());
    p.lastContext.set(context);
    p.lastMdc.set(org.slf4j.MDC.getCopyOfContextMap());
    p.executions.incrementAndGet();
    int now = p.current.incrementAndGet();
    p.max.accumulateAndGet(now, Math::max);
    String params = context.paramsJson();
    String progress = text(params, "progress");
    if (progress != null) {
      context.heartbeat(progress);
    }
    try {
      work(params);
      context.checkCancelled();
      return outcome(context, params);
    } catch (InterruptedException | RunCancelledException e) {
      if (context.isCancelled()) {
        p.sawCancellation.incrementAndGet();
      }
      if (params.contains("\"returnAnyway\":true")) {
        return AgentResult.of("stale result of attempt " + context.attempt());
      }
      throw e;
    } finally {
      p.current.decrementAndGet();
      p.finished.incrementAndGet();
    }
  }

  private static void work(String params) throws InterruptedException {
    boolean deaf = params.contains("\"ignoreInterrupts\":true");
    String gate = text(params, "gate");
    String duration = text(params, "duration");
    long end =
        System.nanoTime() + Duration.ofMillis(duration == null ? 0 : millis(duration)).toNanos();
    boolean interrupted = false;
    while (true) {
      try {
        if (gate != null) {
          gate(gate).await();
        } else if (end - System.nanoTime() > 0) {
          // The agent's own work, standing in for a tool call of known length.
          TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
        }
        break;
      } catch (InterruptedException e) {
        if (!deaf) {
          throw e;
        }
        interrupted = true; // a misbehaving agent: keeps waiting, then restores the flag
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static AgentResult outcome(AgentContext context, String params) {
    if (params.contains("\"throwError\":\"StackOverflowError\"")) {
      throw new StackOverflowError("counting agent was asked to throw it");
    }
    String failFirst = number(params, "failFirst");
    if (failFirst != null && context.attempt() <= Integer.parseInt(failFirst)) {
      String why = "counting: failing attempt " + context.attempt() + " of the first " + failFirst;
      throw params.contains("\"nonRetryable\":true")
          ? new NonRetryableException(why)
          : new IllegalStateException(why);
    }
    String summary = text(params, "summary");
    if (summary != null) {
      String repeat = number(params, "repeat");
      return AgentResult.of(summary.repeat(repeat == null ? 1 : Integer.parseInt(repeat)));
    }
    return AgentResult.of("counted " + context.idempotencyKey() + " attempt " + context.attempt());
  }

  private static String text(String params, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":\"([^\"]*)\"").matcher(params);
    return m.find() ? m.group(1) : null;
  }

  private static String number(String params, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(params);
    return m.find() ? m.group(1) : null;
  }

  private static long millis(String duration) {
    return duration.endsWith("ms")
        ? Long.parseLong(duration.substring(0, duration.length() - 2))
        : Duration.ofSeconds(Long.parseLong(duration.substring(0, duration.length() - 1)))
            .toMillis();
  }
}
