package dev.carillon.model.task;

import dev.carillon.model.Durations;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What to run, when, and what to do when it fails. A value: valid by construction, every rule
 * checked in the constructor ({@link TaskRules}), every problem named with its field and value.
 * Text (YAML, JSON, database columns) is read into definitions at the edges ({@code
 * dev.carillon.spec}); the {@link Builder} is for code.
 *
 * @param id task id, {@code [a-z0-9][a-z0-9._-]{0,63}}
 * @param handler the {@code AgentTask.type()} that runs it
 * @param queue the worker pool that runs it ({@link #DEFAULT_QUEUE} unless set): only workers
 *     serving this queue claim its instances; same pattern as a task id
 * @param trigger what wakes it: cron, one instant (at), dependency, event or condition
 * @param overlap what to do while an earlier window is still live
 * @param catchup how far back missed fire times still run after downtime, 0 to 7 days
 * @param timeout the longest one attempt may run (the worker's lease and deadline), 1 s to 1 day
 * @param retry the retry policy (default {@link RetryPolicy#none()})
 * @param paramsJson a JSON object handed to the agent, at most {@link #MAX_PARAMS_BYTES} bytes
 *     (null is {@code {}})
 * @param paused a paused task creates no windows
 * @param version incremented by the store on every change
 * @throws InvalidTaskException listing every broken rule, each with its field and value
 */
public record TaskDefinition(
    String id,
    String handler,
    String queue,
    Trigger trigger,
    OverlapPolicy overlap,
    Duration catchup,
    Duration timeout,
    RetryPolicy retry,
    String paramsJson,
    boolean paused,
    long version) {

  public static final Pattern ID_PATTERN = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  public static final Pattern HANDLER_PATTERN = Pattern.compile("[a-z0-9][a-z0-9._-]{0,127}");

  /** A queue name: the pattern of a task id, so that it can be part of a Kafka topic name. */
  public static final Pattern QUEUE_PATTERN = ID_PATTERN;

  /** The queue of a task that names none. */
  public static final String DEFAULT_QUEUE = "default";

  public static final Duration DEFAULT_CATCHUP = Duration.ofHours(1);
  public static final Duration MAX_CATCHUP = Duration.ofDays(7);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_TIMEOUT = Duration.ofHours(24);
  public static final int MAX_PARAMS_BYTES = 64 * 1024;

  public TaskDefinition {
    List<Problem> problems = new ArrayList<>();
    TaskRules.check(problems, "id", id, TaskRules.id(id));
    TaskRules.check(problems, "handler", handler, TaskRules.handler(handler));
    TaskRules.check(problems, "queue", queue, TaskRules.queue(queue));
    if (trigger == null) {
      problems.add(
          new Problem(
              "schedule", null, "is required (schedule.cron, at, after, event or condition)"));
    } else if (trigger instanceof DependencyTrigger d) {
      // The trigger checked its list; only the task knows its own id.
      problems.addAll(TaskRules.selfDependencies(id, d.upstreams()));
    }
    if (overlap == null) {
      problems.add(new Problem("overlap", null, "is required (SKIP or ALLOW)"));
    }
    TaskRules.check(problems, "catchup", format(catchup), TaskRules.catchup(catchup));
    TaskRules.check(problems, "timeout", format(timeout), TaskRules.timeout(timeout));
    TaskRules.required(problems, "retry", retry);
    paramsJson = paramsJson == null ? "{}" : paramsJson;
    TaskRules.params("params", paramsJson).ifPresent(problems::add);
    if (version < 0) {
      problems.add(new Problem("version", version, "must not be negative"));
    }
    TaskRules.throwIfAny(id, problems);
  }

  /** What wakes this task: the kind of its trigger. */
  public TriggerKind triggerKind() {
    return trigger.kind();
  }

  /** The window kind of this task's windows (its trigger's). */
  public WindowKind window() {
    return trigger.window();
  }

  /** The zone this task's windows are computed in (its trigger's). */
  public ZoneId zone() {
    return trigger.zone();
  }

  /** The tasks whose windows this one waits for; empty unless it has a dependency trigger. */
  public List<String> upstreams() {
    return trigger instanceof DependencyTrigger d ? d.upstreams() : List.of();
  }

  public TaskDefinition withPaused(boolean value) {
    return new TaskDefinition(
        id, handler, queue, trigger, overlap, catchup, timeout, retry, paramsJson, value, version);
  }

  public TaskDefinition withVersion(long value) {
    return new TaskDefinition(
        id, handler, queue, trigger, overlap, catchup, timeout, retry, paramsJson, paused, value);
  }

  public static Builder builder(String id) {
    return new Builder(id);
  }

  private static String format(Duration d) {
    return d == null ? null : Durations.format(d);
  }

  /**
   * Builds a definition in code, with the documented defaults: queue {@value #DEFAULT_QUEUE},
   * overlap SKIP, catchup 1 h, timeout 30 min, no retries, params {@code {}}, not paused, version
   * 1. A trigger is required. Not thread-safe.
   */
  public static final class Builder {
    private final String id;
    private String handler;
    private String queue = DEFAULT_QUEUE;
    private Trigger trigger;
    private OverlapPolicy overlap = OverlapPolicy.SKIP;
    private Duration catchup = DEFAULT_CATCHUP;
    private Duration timeout = DEFAULT_TIMEOUT;
    private RetryPolicy retry = RetryPolicy.none();
    private String paramsJson = "{}";
    private boolean paused;
    private long version = 1;

    private Builder(String id) {
      this.id = id;
    }

    public Builder handler(String value) {
      this.handler = value;
      return this;
    }

    public Builder queue(String value) {
      this.queue = value;
      return this;
    }

    /** The one trigger; replaces any set before. */
    public Builder trigger(Trigger value) {
      this.trigger = value;
      return this;
    }

    /**
     * A {@link CronTrigger} of {@code expression} in {@code zone}.
     *
     * @throws InvalidTaskException naming this task and {@code schedule.cron} when the expression
     *     does not parse
     */
    public Builder cron(String expression, ZoneId zone, WindowKind window) {
      try {
        return trigger(CronTrigger.of(expression, zone, window));
      } catch (InvalidTaskException e) {
        throw new InvalidTaskException(id, e.problems());
      }
    }

    public Builder overlap(OverlapPolicy value) {
      this.overlap = value;
      return this;
    }

    public Builder catchup(Duration value) {
      this.catchup = value;
      return this;
    }

    public Builder timeout(Duration value) {
      this.timeout = value;
      return this;
    }

    public Builder retry(RetryPolicy value) {
      this.retry = value;
      return this;
    }

    public Builder paramsJson(String value) {
      this.paramsJson = value;
      return this;
    }

    public Builder paused(boolean value) {
      this.paused = value;
      return this;
    }

    public Builder version(long value) {
      this.version = value;
      return this;
    }

    /**
     * @throws InvalidTaskException listing every problem, each with its field and value
     */
    public TaskDefinition build() {
      return new TaskDefinition(
          id,
          handler,
          queue,
          trigger,
          overlap,
          catchup,
          timeout,
          retry,
          paramsJson,
          paused,
          version);
    }
  }
}
