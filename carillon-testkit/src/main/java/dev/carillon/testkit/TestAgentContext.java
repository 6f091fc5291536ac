package dev.carillon.testkit;

import dev.carillon.api.AgentContext;
import dev.carillon.api.Checkpoint;
import dev.carillon.api.Effect;
import dev.carillon.api.RunCancelledException;
import dev.carillon.api.Stability;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@link AgentContext} for unit tests of a plugin: fixed values chosen with a {@link Builder},
 * the heartbeats the agent reported, and a cancellation the test triggers with {@link #cancel()}.
 *
 * <pre>{@code
 * SettableClock clock = new SettableClock(Instant.parse("2026-11-29T08:00:00Z"));
 * TestAgentContext context =
 *     TestAgentContext.builder().taskId("reports").params("{\"sections\":[\"orders\"]}")
 *         .clock(clock).timeout(Duration.ofMinutes(10)).build();
 * AgentResult result = new ReportAgent(clock).run(context);
 * assertThat(context.heartbeats()).containsExactly("section 1 of 1: orders");
 * }</pre>
 *
 * <p><b>Defaults.</b> Task {@value #DEFAULT_TASK_ID}; attempt 1 with no retries and no previous
 * failure; params {@code {}}; {@link #startedAt()} is the clock's instant when {@link
 * Builder#build()} runs (the clock defaults to a fixed {@value #DEFAULT_START}); {@link
 * #deadline()} is that instant plus the timeout (default {@link #DEFAULT_TIMEOUT}, the default of a
 * task definition); the window is the UTC day of the start, keyed by its date (e.g. {@code
 * 2026-11-29}); {@link #scheduledAt()} is the start.
 *
 * <p><b>Resumable agents.</b> Checkpoints and effects are kept in memory with the worker's rules
 * (the same size and key limits, nothing written after cancellation, {@link #once} calls with one
 * key serialized, an effect started and never recorded {@linkplain
 * dev.carillon.api.EffectCall#inDoubt() in doubt} for the next attempt). {@link #retried} hands the
 * next attempt what a worker would: the last checkpoint this attempt saved and its effects. The
 * builder chooses where a run stops as if its worker died ({@link Builder#stopAfterCheckpoints},
 * {@link Builder#stopAfterEffect}, {@link Builder#stopBeforeRecording}) and what an earlier attempt
 * left ({@link Builder#lastCheckpoint}, {@link Builder#effectDone}, {@link Builder#effectInDoubt}):
 *
 * <pre>{@code
 * TestAgentContext first = TestAgentContext.builder().params(params).stopAfterEffect("post").build();
 * assertThatThrownBy(() -> agent.run(first)).isInstanceOf(RunCancelledException.class);
 * TestAgentContext second = first.retried("the worker died");
 * agent.run(second);
 * assertThat(second.effectRuns("post")).isZero();   // posted once, by the first attempt
 * }</pre>
 *
 * <p><b>Threads.</b> Like the worker's context: the accessors return fixed values, and {@link
 * #heartbeat}, {@link #isCancelled}, {@link #cancel}, {@link #heartbeats}, {@link #checkpoint},
 * {@link #once} and what they recorded may be called from any thread. Unlike the worker, nothing
 * interrupts the agent's thread on {@link #cancel()}: a test that needs the interrupt interrupts
 * its own thread.
 */
@Stability.Evolving
public final class TestAgentContext implements AgentContext {
  /** The task id a context has unless the builder sets one. */
  public static final String DEFAULT_TASK_ID = "test-task";

  /** The start (and scheduled time) a context has unless the builder sets a clock. */
  public static final String DEFAULT_START = "2026-11-29T08:00:00Z";

  /** The run's timeout unless the builder sets one: the default of a task definition. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);

  private final String taskId;
  private final String windowKey;
  private final Instant windowStart;
  private final Instant windowEnd;
  private final Instant scheduledAt;
  private final Instant startedAt;
  private final Instant deadline;
  private final int attempt;
  private final int retryCount;
  private final String previousFailureReason;
  private final String paramsJson;
  private final AtomicBoolean cancelled = new AtomicBoolean();
  private final List<String> heartbeats = new ArrayList<>();
  private final Clock clock;
  private final ResumeLog resume;

  private TestAgentContext(Builder b, Instant startedAt) {
    this.taskId = b.taskId;
    Instant dayStart =
        LocalDate.ofInstant(startedAt, ZoneOffset.UTC).atStartOfDay(ZoneOffset.UTC).toInstant();
    this.windowStart = b.windowStart != null ? b.windowStart : dayStart;
    this.windowEnd = b.windowEnd != null ? b.windowEnd : dayStart.plus(Duration.ofDays(1));
    this.windowKey =
        b.windowKey != null
            ? b.windowKey
            : LocalDate.ofInstant(windowStart, ZoneOffset.UTC).toString();
    this.scheduledAt = b.scheduledAt != null ? b.scheduledAt : startedAt;
    this.startedAt = startedAt;
    this.deadline = startedAt.plus(b.timeout);
    this.attempt = b.attempt;
    this.retryCount = b.retryCount;
    this.previousFailureReason = b.previousFailureReason;
    this.paramsJson = b.paramsJson;
    this.clock = b.clock;
    this.resume =
        new ResumeLog(
            b.clock,
            b.attempt,
            Optional.ofNullable(b.lastCheckpoint),
            b.effects,
            new ResumeLog.Stops(b.stopAfterCheckpoints, b.stopAfterEffect, b.stopBeforeRecording),
            this::cancel,
            new ResumeLog.CancelledCheck() {
              @Override
              public boolean isCancelled() {
                return cancelled.get();
              }

              @Override
              public RunCancelledException exception() {
                return new RunCancelledException(idempotencyKey(), attempt);
              }
            });
  }

  /**
   * A builder with the defaults of the class comment.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A context with the defaults and these params.
   *
   * @param paramsJson the task's parameters, a JSON object as text
   * @return the context
   */
  public static TestAgentContext of(String paramsJson) {
    return builder().params(paramsJson).build();
  }

  /**
   * A builder holding this context's values, to make a variant (another attempt, another window).
   * The start is kept as a fixed instant unless the new builder is given a clock; heartbeats,
   * cancellation, checkpoints and effects are not copied ({@link #retried} carries the last two to
   * the next attempt).
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.taskId = taskId;
    b.windowKey = windowKey;
    b.windowStart = windowStart;
    b.windowEnd = windowEnd;
    b.scheduledAt = scheduledAt;
    b.clock = Clock.fixed(startedAt, ZoneOffset.UTC);
    b.timeout = Duration.between(startedAt, deadline);
    b.attempt = attempt;
    b.retryCount = retryCount;
    b.previousFailureReason = previousFailureReason;
    b.paramsJson = paramsJson;
    return b;
  }

  /**
   * The next attempt of the same instance after a failure, as the worker would build it once the
   * retry policy granted a retry: attempt and retry count one higher, the failure as {@link
   * #previousFailureReason()}, the same window and params. Its {@link #lastCheckpoint()} is the
   * last checkpoint this attempt saved (or, if it saved none, the one this attempt resumed from),
   * and its effects are this attempt's: done ones are not performed again, started and unrecorded
   * ones are in doubt.
   *
   * @param failureReason why this attempt failed
   * @return the next attempt's context
   */
  public TestAgentContext retried(String failureReason) {
    Builder next =
        toBuilder()
            .attempt(attempt + 1)
            .retryCount(retryCount + 1)
            .previousFailureReason(failureReason);
    next.lastCheckpoint = resume.lastSaved().or(resume::lastCheckpoint).orElse(null);
    next.effects = resume.forNextAttempt();
    return next.build();
  }

  /** Cancels the run, as the worker does on deadline, lease loss, operator cancel or shutdown. */
  public void cancel() {
    cancelled.set(true);
  }

  /**
   * Every progress text the agent reported, in order, up to the cancellation ({@code null}s
   * included: they clear the progress).
   *
   * @return a copy of the reports
   */
  public List<String> heartbeats() {
    synchronized (heartbeats) {
      return new ArrayList<>(heartbeats);
    }
  }

  @Override
  public String taskId() {
    return taskId;
  }

  @Override
  public String windowKey() {
    return windowKey;
  }

  @Override
  public Instant windowStart() {
    return windowStart;
  }

  @Override
  public Instant windowEnd() {
    return windowEnd;
  }

  @Override
  public Instant scheduledAt() {
    return scheduledAt;
  }

  @Override
  public Instant startedAt() {
    return startedAt;
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public int retryCount() {
    return retryCount;
  }

  @Override
  public Optional<String> previousFailureReason() {
    return Optional.ofNullable(previousFailureReason);
  }

  @Override
  public Instant deadline() {
    return deadline;
  }

  @Override
  public String paramsJson() {
    return paramsJson;
  }

  /** Records {@code progress}; ignored after {@link #cancel()}, as in the worker. */
  @Override
  public void heartbeat(String progress) {
    if (cancelled.get()) {
      return;
    }
    synchronized (heartbeats) {
      heartbeats.add(progress);
    }
  }

  /**
   * Saves a checkpoint in memory (see {@link AgentContext#checkpoint}); {@link #retried} hands the
   * last one to the next attempt. Refused with {@link RunCancelledException} after {@link
   * #cancel()}.
   */
  @Override
  public void checkpoint(String stateJson) {
    resume.checkpoint(stateJson);
  }

  /** The checkpoint {@link Builder#lastCheckpoint} set, or the one {@link #retried} carried. */
  @Override
  public Optional<Checkpoint> lastCheckpoint() {
    return resume.lastCheckpoint();
  }

  /** Runs the effect unless it is recorded as done (see {@link AgentContext#once}). */
  @Override
  public String once(String key, Effect effect) throws Exception {
    return resume.once(key, effect, idempotencyKey());
  }

  /**
   * The checkpoints this attempt saved, oldest first.
   *
   * @return a copy of the saved states
   */
  public List<String> checkpoints() {
    return resume.saved();
  }

  /**
   * How many times this attempt performed the effect {@code key} (0 when it found it done).
   *
   * @param key the effect's key
   * @return the number of times the effect ran in this context
   */
  public int effectRuns(String key) {
    return resume.effect(key).map(e -> e.runs).orElse(0);
  }

  /**
   * Whether the effect {@code key} is recorded as done, by this attempt or an earlier one.
   *
   * @param key the effect's key
   * @return {@code true} when done
   */
  public boolean effectDone(String key) {
    return resume.effect(key).map(e -> e.done).orElse(false);
  }

  /**
   * The recorded result of the effect {@code key}.
   *
   * @param key the effect's key
   * @return the result, or empty when the effect is not done or returned {@code null}
   */
  public Optional<String> effectResult(String key) {
    return resume.effect(key).filter(e -> e.done).map(e -> e.result);
  }

  @Override
  public boolean isCancelled() {
    return cancelled.get();
  }

  @Override
  public String toString() {
    return "TestAgentContext[" + idempotencyKey() + " attempt " + attempt + "]";
  }

  /**
   * Chooses a context's values; every setter is optional. Not thread-safe; each {@link #build()}
   * makes an independent context.
   */
  @Stability.Evolving
  public static final class Builder {
    private String taskId = DEFAULT_TASK_ID;
    private String windowKey;
    private Instant windowStart;
    private Instant windowEnd;
    private Instant scheduledAt;
    private Clock clock = Clock.fixed(Instant.parse(DEFAULT_START), ZoneOffset.UTC);
    private Duration timeout = DEFAULT_TIMEOUT;
    private int attempt = 1;
    private int retryCount;
    private String previousFailureReason;
    private String paramsJson = "{}";
    private Checkpoint lastCheckpoint;
    private Map<String, ResumeLog.EffectState> effects = new HashMap<>();
    private int stopAfterCheckpoints;
    private String stopAfterEffect;
    private String stopBeforeRecording;

    private Builder() {}

    /**
     * The checkpoint an earlier attempt saved, returned by {@link #lastCheckpoint()}.
     *
     * @param stateJson the state, one JSON object as text
     * @param attempt the attempt that saved it; below the context's attempt (check at {@link
     *     #build()})
     * @param savedAt when it was saved
     * @return this builder
     */
    public Builder lastCheckpoint(String stateJson, int attempt, Instant savedAt) {
      this.lastCheckpoint = new Checkpoint(stateJson, attempt, savedAt);
      return this;
    }

    /**
     * An effect an earlier attempt recorded as done: {@code once(key, ...)} returns {@code result}
     * without running the effect.
     *
     * @param key the effect's key
     * @param result its recorded result, or {@code null}
     * @return this builder
     */
    public Builder effectDone(String key, String result) {
      ResumeLog.EffectState e = new ResumeLog.EffectState();
      e.done = true;
      e.result = result;
      effects.put(Objects.requireNonNull(key, "key"), e);
      return this;
    }

    /**
     * An effect an earlier attempt started and never recorded (its worker died in between): {@code
     * once(key, ...)} runs it told that it is in doubt.
     *
     * @param key the effect's key
     * @return this builder
     */
    public Builder effectInDoubt(String key) {
      ResumeLog.EffectState e = new ResumeLog.EffectState();
      e.startedUnrecorded = true;
      effects.put(Objects.requireNonNull(key, "key"), e);
      return this;
    }

    /**
     * Stops the run as a worker's death would, right after its {@code n}th checkpoint is saved: the
     * context is cancelled, so the agent's next checkpoint, {@code once} or {@code checkCancelled}
     * throws {@link RunCancelledException}.
     *
     * @param n 1 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code n} is less than 1
     */
    public Builder stopAfterCheckpoints(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("stopAfterCheckpoints must be 1 or more, was " + n);
      }
      this.stopAfterCheckpoints = n;
      return this;
    }

    /**
     * Stops the run as a worker's death would, right after the effect {@code key} is performed and
     * recorded as done: the agent's next call sees the cancellation.
     *
     * @param key the effect's key
     * @return this builder
     */
    public Builder stopAfterEffect(String key) {
      this.stopAfterEffect = Objects.requireNonNull(key, "key");
      return this;
    }

    /**
     * Stops the run in the gap: the effect {@code key} is performed, then the context is cancelled
     * and {@code once} throws {@link RunCancelledException} before recording it, so that the next
     * attempt finds it {@linkplain dev.carillon.api.EffectCall#inDoubt() in doubt}.
     *
     * @param key the effect's key
     * @return this builder
     */
    public Builder stopBeforeRecording(String key) {
      this.stopBeforeRecording = Objects.requireNonNull(key, "key");
      return this;
    }

    /**
     * The task id.
     *
     * @param value the task id; not {@code null}
     * @return this builder
     */
    public Builder taskId(String value) {
      this.taskId = Objects.requireNonNull(value, "taskId");
      return this;
    }

    /**
     * The business window: its key, inclusive start and exclusive end.
     *
     * @param key the window key, e.g. {@code 2026-11-29}
     * @param start the inclusive start
     * @param end the exclusive end, not before {@code start}
     * @return this builder
     * @throws IllegalArgumentException if {@code end} is before {@code start}
     */
    public Builder window(String key, Instant start, Instant end) {
      Objects.requireNonNull(key, "window key");
      Objects.requireNonNull(start, "window start");
      Objects.requireNonNull(end, "window end");
      if (end.isBefore(start)) {
        throw new IllegalArgumentException(
            "window end " + end + " must not be before its start " + start);
      }
      this.windowKey = key;
      this.windowStart = start;
      this.windowEnd = end;
      return this;
    }

    /**
     * The window key alone; the window's start and end stay as they are (by default the UTC day of
     * the start).
     *
     * @param key the window key, e.g. {@code 2026-11-29}
     * @return this builder
     */
    public Builder windowKey(String key) {
      this.windowKey = Objects.requireNonNull(key, "window key");
      return this;
    }

    /**
     * When the instance was due; defaults to the start.
     *
     * @param value the due instant
     * @return this builder
     */
    public Builder scheduledAt(Instant value) {
      this.scheduledAt = Objects.requireNonNull(value, "scheduledAt");
      return this;
    }

    /**
     * The clock whose instant at {@link #build()} is the start; pass the same clock (a {@code
     * SettableClock}) to the agent to test its deadline handling without sleeping.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * The task's timeout: the deadline is the start plus this.
     *
     * @param value a positive duration
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is zero or negative
     */
    public Builder timeout(Duration value) {
      Objects.requireNonNull(value, "timeout");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("timeout must be positive, was " + value);
      }
      this.timeout = value;
      return this;
    }

    /**
     * The attempt number.
     *
     * @param value 1 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is less than 1
     */
    public Builder attempt(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("attempt must be 1 or more, was " + value);
      }
      this.attempt = value;
      return this;
    }

    /**
     * The retries granted so far.
     *
     * @param value 0 or more
     * @return this builder
     * @throws IllegalArgumentException if {@code value} is negative
     */
    public Builder retryCount(int value) {
      if (value < 0) {
        throw new IllegalArgumentException("retryCount must be 0 or more, was " + value);
      }
      this.retryCount = value;
      return this;
    }

    /**
     * Why the previous attempt failed.
     *
     * @param value the reason, or {@code null} for none
     * @return this builder
     */
    public Builder previousFailureReason(String value) {
      this.previousFailureReason = value;
      return this;
    }

    /**
     * The task's parameters, handed to the agent as they are (not checked, so a test can pass
     * broken JSON).
     *
     * @param json a JSON object as text; not {@code null}
     * @return this builder
     */
    public Builder params(String json) {
      this.paramsJson = Objects.requireNonNull(json, "params");
      return this;
    }

    /**
     * The context; its start is the clock's instant now.
     *
     * @return a new context
     * @throws IllegalArgumentException if a {@link #lastCheckpoint} is not from an earlier attempt
     */
    public TestAgentContext build() {
      if (lastCheckpoint != null && lastCheckpoint.attempt() >= attempt) {
        throw new IllegalArgumentException(
            "lastCheckpoint's attempt "
                + lastCheckpoint.attempt()
                + " must be below the context's attempt "
                + attempt);
      }
      return new TestAgentContext(this, clock.instant());
    }
  }
}
