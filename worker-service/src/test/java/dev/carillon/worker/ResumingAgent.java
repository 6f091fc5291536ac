package dev.carillon.worker;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.Checkpoint;
import dev.carillon.api.EffectCall;
import dev.carillon.api.RunCancelledException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The worker tests' handler {@code resuming}: each attempt records the checkpoint it resumes from,
 * saves its own, and optionally performs the effect {@code post} through {@code once}, then does
 * what its params say for its attempt number.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>meaning</th></tr>
 *   <tr><td>holdAttempt</td><td>this attempt waits for the test's {@link #gate} after its first
 *       checkpoint (or inside its effect, with {@code holdInEffect}), then tries a second,
 *       "late" checkpoint</td></tr>
 *   <tr><td>holdInEffect</td><td>the held attempt waits inside its effect, after "posting"</td></tr>
 *   <tr><td>post</td><td>perform the effect {@code post} through {@code once}</td></tr>
 *   <tr><td>threads</td><td>call {@code once("post")} from this many threads at once</td></tr>
 *   <tr><td>failAttempt</td><td>this attempt fails (retryably) after its checkpoint and effect</td></tr>
 * </table>
 */
public final class ResumingAgent implements AgentTask {
  /** What the runs of one task saw and did. */
  public static final class Probe {
    /** By attempt: the state of the checkpoint it resumed from, or "none". */
    public final Map<Integer, String> resumedFrom = new ConcurrentHashMap<>();

    /** By attempt: what its late checkpoint got ("saved" or "refused"). */
    public final Map<Integer, String> late = new ConcurrentHashMap<>();

    /** Every time the effect really ran: the call it was given and the attempt. */
    public final List<String> performed = new CopyOnWriteArrayList<>();

    /** By attempt: what {@code once} returned, or the exception it threw. */
    public final Map<Integer, List<String>> onceResults = new ConcurrentHashMap<>();

    /** Opened once the held attempt waits at its gate (after its checkpoint or in its effect). */
    public final CountDownLatch holding = new CountDownLatch(1);
  }

  private static final ConcurrentHashMap<String, Probe> PROBES = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<String, CountDownLatch> GATES = new ConcurrentHashMap<>();

  /** The probe of {@code taskId}; tests use unique task ids. */
  public static Probe probe(String taskId) {
    return PROBES.computeIfAbsent(taskId, k -> new Probe());
  }

  /** The latch the held attempt of {@code taskId} waits for; the test opens it. */
  public static CountDownLatch gate(String taskId) {
    return GATES.computeIfAbsent(taskId, k -> new CountDownLatch(1));
  }

  @Override
  public String type() {
    return "resuming";
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    Probe p = probe(context.taskId());
    String params = context.paramsJson();
    int attempt = context.attempt();
    boolean held = attempt == number(params, "holdAttempt");
    p.resumedFrom.put(attempt, context.lastCheckpoint().map(Checkpoint::stateJson).orElse("none"));
    context.checkpoint("{\"attempt\":" + attempt + ",\"step\":\"early\"}");
    if (held && !params.contains("\"holdInEffect\":true")) {
      hold(context, p);
    }
    if (params.contains("\"post\":true")) {
      post(context, p, held && params.contains("\"holdInEffect\":true"), number(params, "threads"));
    }
    if (attempt == number(params, "failAttempt")) {
      throw new IllegalStateException("resuming: failing attempt " + attempt);
    }
    return AgentResult.of("attempt " + attempt + " done");
  }

  private static void hold(AgentContext context, Probe p) throws InterruptedException {
    p.holding.countDown();
    gate(context.taskId()).await();
    try {
      context.checkpoint("{\"attempt\":" + context.attempt() + ",\"step\":\"late\"}");
      p.late.put(context.attempt(), "saved");
    } catch (RunCancelledException e) {
      p.late.put(context.attempt(), "refused");
      throw e;
    }
  }

  private static void post(AgentContext context, Probe p, boolean holdInEffect, int threads)
      throws Exception {
    List<String> results =
        p.onceResults.computeIfAbsent(context.attempt(), k -> new CopyOnWriteArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> calls =
          java.util.stream.IntStream.range(0, Math.max(1, threads))
              .mapToObj(
                  i ->
                      pool.submit(
                          () -> {
                            go.await();
                            return context.once(
                                "post", call -> effect(context, p, call, holdInEffect));
                          }))
              .toList();
      go.countDown();
      for (Future<String> f : calls) {
        try {
          results.add(f.get());
        } catch (java.util.concurrent.ExecutionException e) {
          results.add(e.getCause().getClass().getSimpleName());
          if (e.getCause() instanceof Exception cause) {
            throw cause;
          }
          throw e;
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static String effect(AgentContext context, Probe p, EffectCall call, boolean hold)
      throws InterruptedException {
    p.performed.add(
        "attempt "
            + context.attempt()
            + " "
            + call.idempotencyKey()
            + " inDoubt="
            + call.inDoubt());
    if (hold) {
      p.holding.countDown();
      gate(context.taskId()).await();
    }
    return "posted by attempt " + context.attempt();
  }

  private static int number(String params, String key) {
    Matcher m = Pattern.compile("\"" + key + "\":(\\d+)").matcher(params);
    return m.find() ? Integer.parseInt(m.group(1)) : 0;
  }
}
