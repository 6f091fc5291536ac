package dev.carillon.agents;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;

/**
 * Handler {@code sleep}: waits, then succeeds or fails as its parameters say. It stands in for a
 * slow, flaky agent in the local stack, the benchmarks and fault tests.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>duration</td><td>1s</td><td>how long to sleep ({@code 500ms}, {@code 2s}, {@code PT1M})</td></tr>
 *   <tr><td>failFirst</td><td>0</td><td>fail attempts 1..N, succeed from attempt N+1</td></tr>
 *   <tr><td>failureRate</td><td>0</td><td>probability 0..1 of failing; the draw is seeded by the
 *       idempotency key and the attempt, so a given attempt always decides the same way</td></tr>
 *   <tr><td>nonRetryable</td><td>false</td><td>fail with {@link NonRetryableException}</td></tr>
 *   <tr><td>ignoreInterrupts</td><td>false</td><td>keep sleeping through interrupts (a misbehaving
 *       agent, for fault tests)</td></tr>
 *   <tr><td>resultBytes</td><td>-</td><td>return a summary of exactly this many bytes</td></tr>
 *   <tr><td>throwError</td><td>-</td><td>throw an {@link Error}: {@code "StackOverflowError"},
 *       {@code "OutOfMemoryError"} or any other text for a plain {@code Error}</td></tr>
 * </table>
 */
public final class SleepAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "sleep";

  /** Creates the agent; {@link java.util.ServiceLoader} needs a public no-argument constructor. */
  public SleepAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws InterruptedException {
    Params p = Params.parse(TYPE, context.paramsJson());
    Duration duration = p.duration("duration", Duration.ofSeconds(1));
    long failFirst = p.integer("failFirst", 0, 0, Integer.MAX_VALUE);
    double failureRate = p.decimal("failureRate", 0, 0, 1);
    boolean nonRetryable = p.bool("nonRetryable", false);
    boolean ignoreInterrupts = p.bool("ignoreInterrupts", false);
    long resultBytes = p.integer("resultBytes", -1, -1, 64L * 1024 * 1024);
    String throwError = p.text("throwError", null);

    if (ignoreInterrupts) {
      sleepUninterruptibly(duration);
    } else {
      // Sleeping is the whole point of this agent; an interrupt (deadline, lost lease, shutdown)
      // ends it with InterruptedException, as the plugin API asks.
      Thread.sleep(duration.toMillis());
    }
    context.checkCancelled();

    if (throwError != null) {
      throw switch (throwError) {
        case "StackOverflowError" -> new StackOverflowError("sleep agent was asked to throw it");
        case "OutOfMemoryError" -> new OutOfMemoryError("sleep agent was asked to throw it");
        default -> new Error("sleep agent was asked to throw an Error: " + throwError);
      };
    }
    String failure = null;
    if (context.attempt() <= failFirst) {
      failure = "failing attempt " + context.attempt() + " of the first " + failFirst;
    } else if (failureRate > 0 && draw(context) < failureRate) {
      failure = "random failure at rate " + failureRate + " on attempt " + context.attempt();
    }
    if (failure != null) {
      throw nonRetryable
          ? new NonRetryableException("sleep: " + failure)
          : new IllegalStateException("sleep: " + failure);
    }
    if (resultBytes >= 0) {
      return AgentResult.of(filler((int) resultBytes));
    }
    return AgentResult.of("slept " + duration + " on attempt " + context.attempt());
  }

  /** The same number for the same instance and attempt, on every worker and every run. */
  static double draw(AgentContext context) {
    long seed = context.idempotencyKey().hashCode() * 31L + context.attempt();
    return new Random(seed).nextDouble();
  }

  /** Exactly {@code bytes} bytes of UTF-8 text, with a recognisable end. */
  static String filler(int bytes) {
    StringBuilder sb = new StringBuilder(bytes);
    String unit = "sleep-result ";
    while (sb.length() < bytes) {
      sb.append(unit, 0, Math.min(unit.length(), bytes - sb.length()));
    }
    assert sb.toString().getBytes(StandardCharsets.UTF_8).length == bytes;
    return sb.toString();
  }

  private static void sleepUninterruptibly(Duration duration) {
    long end = System.nanoTime() + duration.toNanos();
    boolean interrupted = false;
    long left;
    while ((left = end - System.nanoTime()) > 0) {
      try {
        // Deliberately swallows interrupts to imitate a badly behaved agent in fault tests.
        Thread.sleep(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
