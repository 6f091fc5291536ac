package dev.carillon.retry.ratelimit;

import dev.carillon.model.ratelimit.TokenBucket;
import dev.carillon.model.tuning.RateLimitSettings;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Decides whether one more instance may be republished now: a global token bucket, one bucket per
 * task, and the pass's {@link ScanBudget}. A message goes out only when all three allow it, and
 * then takes from all three; a refusal takes nothing. The buckets are asked at the clock's instant.
 *
 * <p>Settings change live ({@link #update}). Thread-safe.
 */
public final class RepublishLimiter {
  /** Per-task buckets beyond this many are pruned of the full (idle) ones. */
  static final int PRUNE_ABOVE = 10_000;

  /** The answer for one instance. */
  public enum Verdict {
    /** Publish it. */
    GRANTED,
    /** The global bucket is empty. */
    HELD_GLOBAL,
    /** This task's bucket is empty. */
    HELD_TASK,
    /** The pass has republished its maximum. */
    HELD_SCAN_MAX;

    /** The metric tag, e.g. {@code global}. */
    public String tag() {
      return switch (this) {
        case GRANTED -> "none";
        case HELD_GLOBAL -> "global";
        case HELD_TASK -> "per_task";
        case HELD_SCAN_MAX -> "max_per_scan";
      };
    }
  }

  private final Clock clock;
  private final TokenBucket global;
  private final Map<String, TokenBucket> perTask = new HashMap<>();
  private RateLimitSettings settings;

  public RepublishLimiter(RateLimitSettings settings, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.global = new TokenBucket(settings.perSecond(), settings.burst(), clock.instant());
  }

  /** Asks to republish one instance of {@code taskId} within {@code budget}. */
  public synchronized Verdict admit(String taskId, ScanBudget budget) {
    if (budget.left() <= 0) {
      return Verdict.HELD_SCAN_MAX;
    }
    Instant now = clock.instant();
    if (global.available(now) < 1) {
      return Verdict.HELD_GLOBAL;
    }
    TokenBucket task = perTask.computeIfAbsent(taskId, t -> newTaskBucket(now));
    if (!task.tryTake(now)) {
      return Verdict.HELD_TASK;
    }
    global.tryTake(now);
    budget.take();
    if (perTask.size() > PRUNE_ABOVE) {
      perTask.values().removeIf(b -> b.isFull(now));
    }
    return Verdict.GRANTED;
  }

  /** Whole global tokens available now: an upper bound on what may go out this instant. */
  public synchronized int globalAvailable() {
    return global.available(clock.instant());
  }

  /** Applies new settings; tokens already used stay used. */
  public synchronized void update(RateLimitSettings next) {
    settings = Objects.requireNonNull(next, "next");
    Instant now = clock.instant();
    global.reconfigure(next.perSecond(), next.burst(), now);
    perTask.values().forEach(b -> b.reconfigure(next.perTaskPerSecond(), next.perTaskBurst(), now));
  }

  /** The settings in force. */
  public synchronized RateLimitSettings settings() {
    return settings;
  }

  private TokenBucket newTaskBucket(Instant now) {
    return new TokenBucket(settings.perTaskPerSecond(), settings.perTaskBurst(), now);
  }
}
