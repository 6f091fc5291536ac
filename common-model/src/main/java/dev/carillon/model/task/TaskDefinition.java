package dev.carillon.model.task;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPolicies;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What to run, when, and what to do when it fails. A value: valid by construction, every rule
 * checked in the constructor, every problem named with its field and value.
 *
 * @param id task id, {@code [a-z0-9][a-z0-9._-]{0,63}}
 * @param handler the {@code AgentTask.type()} that runs it
 * @param trigger the cron trigger
 * @param overlap what to do while an earlier window is still live
 * @param catchup how far back missed fire times still run after downtime
 * @param timeout the longest one attempt may run; the worker's lease and deadline
 * @param retry the retry policy (default {@link RetryPolicy#none()})
 * @param paramsJson a JSON object handed to the agent, at most {@link #MAX_PARAMS_BYTES} bytes
 * @param paused a paused task creates no windows
 * @param version incremented by the store on every change
 */
public record TaskDefinition(
    String id,
    String handler,
    CronTrigger trigger,
    OverlapPolicy overlap,
    Duration catchup,
    Duration timeout,
    RetryPolicy retry,
    String paramsJson,
    boolean paused,
    long version) {

  public static final Pattern ID_PATTERN = Pattern.compile("[a-z0-9][a-z0-9._-]{0,63}");
  public static final Pattern HANDLER_PATTERN = Pattern.compile("[a-z0-9][a-z0-9._-]{0,127}");
  public static final Duration DEFAULT_CATCHUP = Duration.ofHours(1);
  public static final Duration MAX_CATCHUP = Duration.ofDays(7);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(30);
  public static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
  public static final Duration MAX_TIMEOUT = Duration.ofHours(24);
  public static final int MAX_PARAMS_BYTES = 64 * 1024;

  private static final ObjectMapper JSON = new ObjectMapper();

  public TaskDefinition {
    List<Problem> problems = new ArrayList<>();
    if (id == null || !ID_PATTERN.matcher(id).matches()) {
      problems.add(new Problem("id", id, "must match " + ID_PATTERN.pattern()));
    }
    if (handler == null || !HANDLER_PATTERN.matcher(handler).matches()) {
      problems.add(new Problem("handler", handler, "must match " + HANDLER_PATTERN.pattern()));
    }
    if (trigger == null) {
      problems.add(new Problem("schedule", null, "is required"));
    }
    if (overlap == null) {
      problems.add(new Problem("overlap", null, "is required (SKIP or ALLOW)"));
    }
    checkRange(problems, "catchup", catchup, Duration.ZERO, MAX_CATCHUP);
    checkRange(problems, "timeout", timeout, MIN_TIMEOUT, MAX_TIMEOUT);
    if (retry == null) {
      problems.add(new Problem("retry", null, "is required"));
    }
    paramsJson = paramsJson == null ? "{}" : paramsJson;
    checkParams(problems, paramsJson);
    if (version < 0) {
      problems.add(new Problem("version", version, "must not be negative"));
    }
    if (!problems.isEmpty()) {
      throw new InvalidTaskException(id, problems);
    }
  }

  private static void checkRange(
      List<Problem> problems, String field, Duration value, Duration min, Duration max) {
    if (value == null) {
      problems.add(new Problem(field, null, "is required"));
    } else if (value.compareTo(min) < 0 || value.compareTo(max) > 0) {
      problems.add(
          new Problem(
              field,
              Durations.format(value),
              "must be between " + Durations.format(min) + " and " + Durations.format(max)));
    }
  }

  private static void checkParams(List<Problem> problems, String paramsJson) {
    int bytes = paramsJson.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_PARAMS_BYTES) {
      problems.add(
          new Problem(
              "params",
              "<" + bytes + " bytes>",
              "is larger than "
                  + MAX_PARAMS_BYTES
                  + " bytes; keep large inputs in an artifact store"));
      return;
    }
    try {
      JsonNode node = JSON.readTree(paramsJson);
      if (node == null || !node.isObject()) {
        problems.add(new Problem("params", abbreviate(paramsJson), "must be a JSON object"));
      }
    } catch (JsonProcessingException e) {
      problems.add(
          new Problem("params", abbreviate(paramsJson), "is not JSON: " + e.getOriginalMessage()));
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  public TaskDefinition withPaused(boolean value) {
    return new TaskDefinition(
        id, handler, trigger, overlap, catchup, timeout, retry, paramsJson, value, version);
  }

  public TaskDefinition withVersion(long value) {
    return new TaskDefinition(
        id, handler, trigger, overlap, catchup, timeout, retry, paramsJson, paused, value);
  }

  public static Builder builder(String id) {
    return new Builder(id);
  }

  /**
   * Builds a definition from text as users write it (YAML, CLI, database columns), collecting every
   * problem before failing, so one error message lists them all.
   */
  public static final class Builder {
    private final String id;
    private final List<Problem> problems = new ArrayList<>();
    private String handler;
    private String cron;
    private String zone;
    private String window = WindowKind.DAILY.name();
    private OverlapPolicy overlap = OverlapPolicy.SKIP;
    private Duration catchup = DEFAULT_CATCHUP;
    private Duration timeout = DEFAULT_TIMEOUT;
    private RetryPolicy retry;
    private Map<String, ?> retrySpec;
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

    public Builder cron(String value) {
      this.cron = value;
      return this;
    }

    public Builder zone(String value) {
      this.zone = value;
      return this;
    }

    public Builder window(String value) {
      this.window = value;
      return this;
    }

    public Builder window(WindowKind value) {
      this.window = value.name();
      return this;
    }

    public Builder overlap(String value) {
      try {
        this.overlap = OverlapPolicy.valueOf(value.trim().toUpperCase(Locale.ROOT));
      } catch (RuntimeException e) {
        this.overlap = null;
        problems.add(new Problem("overlap", value, "must be SKIP or ALLOW"));
      }
      return this;
    }

    public Builder overlap(OverlapPolicy value) {
      this.overlap = value;
      return this;
    }

    public Builder catchup(String value) {
      this.catchup = duration("catchup", value);
      return this;
    }

    public Builder catchup(Duration value) {
      this.catchup = value;
      return this;
    }

    public Builder timeout(String value) {
      this.timeout = duration("timeout", value);
      return this;
    }

    public Builder timeout(Duration value) {
      this.timeout = value;
      return this;
    }

    public Builder retry(RetryPolicy value) {
      this.retry = value;
      this.retrySpec = null;
      return this;
    }

    /** A retry spec as a map, e.g. {@code {policy: DELAYED, delays: [5m, 15m], maxRetries: 2}}. */
    public Builder retrySpec(Map<String, ?> spec) {
      this.retrySpec = spec;
      this.retry = null;
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

    private Duration duration(String field, String value) {
      try {
        return Durations.parse(field, value);
      } catch (InvalidValueException e) {
        problems.add(e.problem());
        return null;
      }
    }

    /**
     * @throws InvalidTaskException listing every problem, each with its field and value
     */
    public TaskDefinition build() {
      List<Problem> all = new ArrayList<>(problems);
      CronTrigger trigger = buildTrigger(all);
      RetryPolicy policy = retry;
      if (policy == null && retrySpec != null) {
        try {
          policy = RetryPolicies.fromSpec(id, "retry", retrySpec);
        } catch (InvalidTaskException e) {
          all.addAll(e.problems());
        }
      } else if (policy == null) {
        policy = RetryPolicy.none();
      }
      try {
        TaskDefinition def =
            new TaskDefinition(
                id,
                handler,
                trigger,
                overlap,
                catchup,
                timeout,
                policy,
                paramsJson,
                paused,
                version);
        if (all.isEmpty()) {
          return def;
        }
      } catch (InvalidTaskException e) {
        // Keep the builder's own problems first, then the record's, without repeating a field
        // ("schedule is required" adds nothing to "schedule.cron is invalid").
        for (Problem p : e.problems()) {
          if (all.stream()
              .noneMatch(
                  q -> q.field().equals(p.field()) || q.field().startsWith(p.field() + "."))) {
            all.add(p);
          }
        }
      }
      throw new InvalidTaskException(id, all);
    }

    private CronTrigger buildTrigger(List<Problem> all) {
      ZoneId zoneId = null;
      if (zone == null || zone.isBlank()) {
        all.add(
            new Problem("schedule.zone", zone, "is required (an IANA zone such as Asia/Shanghai)"));
      } else {
        try {
          zoneId = ZoneId.of(zone.trim());
        } catch (DateTimeException e) {
          all.add(new Problem("schedule.zone", zone, "is not an IANA time zone"));
        }
      }
      WindowKind kind = null;
      try {
        kind = WindowKind.valueOf(Objects.requireNonNull(window).trim().toUpperCase(Locale.ROOT));
      } catch (RuntimeException e) {
        all.add(
            new Problem(
                "schedule.window", window, "must be DAILY, HOURLY, WEEKLY, MONTHLY or EVERY_FIRE"));
      }
      CronSchedule schedule = null;
      if (cron == null || cron.isBlank()) {
        all.add(new Problem("schedule.cron", cron, "is required"));
      } else if (zoneId != null) {
        try {
          schedule = CronSchedule.parse(cron, zoneId);
        } catch (InvalidValueException e) {
          all.add(e.problem());
        }
      }
      return schedule != null && kind != null ? new CronTrigger(schedule, kind) : null;
    }
  }
}
