package dev.carillon.model.task;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.time.ZoneOffset;
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
 * @param trigger the cron trigger, or {@code null} when the task has another trigger kind
 * @param overlap what to do while an earlier window is still live
 * @param catchup how far back missed fire times still run after downtime
 * @param timeout the longest one attempt may run; the worker's lease and deadline
 * @param retry the retry policy (default {@link RetryPolicy#none()})
 * @param paramsJson a JSON object handed to the agent, at most {@link #MAX_PARAMS_BYTES} bytes
 * @param paused a paused task creates no windows
 * @param version incremented by the store on every change
 * @param window the window kind; for a cron task always the cron trigger's. A dependency task's
 *     must equal its upstreams' (checked across tasks by {@link TaskGraph})
 * @param zone the zone windows are computed in; for a cron task always the cron trigger's
 * @param after the upstream task ids of a dependency trigger, in order; empty for other kinds
 * @param event the event trigger, or {@code null}
 * @param condition the condition trigger, or {@code null}
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
    long version,
    WindowKind window,
    ZoneId zone,
    List<String> after,
    EventTrigger event,
    ConditionTrigger condition) {

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
    after = after == null ? List.of() : List.copyOf(after);
    checkTriggers(problems, trigger, after, event, condition);
    if (window == null) {
      problems.add(new Problem("schedule.window", null, "is required"));
    }
    if (zone == null) {
      problems.add(new Problem("schedule.zone", null, "is required"));
    }
    if (trigger != null && (trigger.window() != window || !trigger.zone().equals(zone))) {
      problems.add(
          new Problem(
              "schedule", window + " " + zone, "must equal the cron trigger's window and zone"));
    }
    checkAfter(problems, id, after);
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

  /**
   * A definition with a cron trigger only: window and zone are the trigger's (the form every task
   * had before dependency, event and condition triggers).
   */
  public TaskDefinition(
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
    this(
        id,
        handler,
        trigger,
        overlap,
        catchup,
        timeout,
        retry,
        paramsJson,
        paused,
        version,
        trigger == null ? null : trigger.window(),
        trigger == null ? null : trigger.zone(),
        List.of(),
        null,
        null);
  }

  /** What wakes this task. */
  public TriggerKind triggerKind() {
    if (trigger != null) {
      return TriggerKind.CRON;
    }
    if (!after.isEmpty()) {
      return TriggerKind.DEPENDENCY;
    }
    return event != null ? TriggerKind.EVENT : TriggerKind.CONDITION;
  }

  /** Whether fire times come from cron (the tick loop's tasks). */
  public boolean hasCron() {
    return trigger != null;
  }

  private static void checkTriggers(
      List<Problem> problems,
      CronTrigger trigger,
      List<String> after,
      EventTrigger event,
      ConditionTrigger condition) {
    List<String> kinds = new ArrayList<>();
    if (trigger != null) {
      kinds.add("schedule.cron");
    }
    if (!after.isEmpty()) {
      kinds.add("after");
    }
    if (event != null) {
      kinds.add("event");
    }
    if (condition != null) {
      kinds.add("condition");
    }
    if (kinds.isEmpty()) {
      problems.add(new Problem("schedule", null, "is required"));
    } else if (kinds.size() > 1) {
      problems.add(
          new Problem(
              "trigger",
              String.join(" + ", kinds),
              "a task has exactly one trigger: schedule.cron, after, event or condition"));
    }
  }

  private static void checkAfter(List<Problem> problems, String id, List<String> after) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (int i = 0; i < after.size(); i++) {
      String up = after.get(i);
      String field = "after[" + i + "]";
      if (up == null || !ID_PATTERN.matcher(up).matches()) {
        problems.add(new Problem(field, up, "must be a task id matching " + ID_PATTERN.pattern()));
      } else if (up.equals(id)) {
        problems.add(new Problem(field, up, "a task cannot depend on itself"));
      } else if (!seen.add(up)) {
        problems.add(new Problem(field, up, "is listed twice"));
      }
    }
  }

  /**
   * The non-cron trigger as a map (the shape of the YAML and of the {@code spec} column): {@code
   * {after: [..]}}, {@code {event: {topic, key, coalesce, ratePerSecond}}} or {@code {condition:
   * {type, every, debounce, params}}}; empty for a cron task.
   */
  public Map<String, Object> triggerSpec() {
    Map<String, Object> out = new java.util.LinkedHashMap<>();
    if (!after.isEmpty()) {
      out.put("after", after);
    }
    if (event != null) {
      Map<String, Object> e = new java.util.LinkedHashMap<>();
      e.put("topic", event.topic());
      e.put("key", event.key().text());
      if (event.coalesces()) {
        e.put("coalesce", Durations.format(event.coalesce()));
      }
      if (event.ratePerSecond() > 0) {
        e.put("ratePerSecond", event.ratePerSecond());
      }
      out.put("event", e);
    }
    if (condition != null) {
      Map<String, Object> c = new java.util.LinkedHashMap<>();
      c.put("type", condition.type());
      c.put("every", Durations.format(condition.every()));
      c.put("debounce", condition.debounce());
      try {
        c.put("params", JSON.readValue(condition.paramsJson(), Map.class));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("condition params were validated as JSON", e);
      }
      out.put("condition", c);
    }
    return out;
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

  static void checkParams(List<Problem> problems, String paramsJson) {
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
    JsonSyntax.objectProblem(paramsJson)
        .ifPresent(m -> problems.add(new Problem("params", abbreviate(paramsJson), m)));
  }

  private static String abbreviate(String s) {
    return s.length() <= 80 ? s : s.substring(0, 77) + "...";
  }

  public TaskDefinition withPaused(boolean value) {
    return new TaskDefinition(
        id,
        handler,
        trigger,
        overlap,
        catchup,
        timeout,
        retry,
        paramsJson,
        value,
        version,
        window,
        zone,
        after,
        event,
        condition);
  }

  public TaskDefinition withVersion(long value) {
    return new TaskDefinition(
        id,
        handler,
        trigger,
        overlap,
        catchup,
        timeout,
        retry,
        paramsJson,
        paused,
        value,
        window,
        zone,
        after,
        event,
        condition);
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
    private List<?> after = List.of();
    private Map<String, ?> eventSpec;
    private Map<String, ?> conditionSpec;

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

    /** Upstream task ids of a dependency trigger; each element should be a task id string. */
    public Builder after(List<?> value) {
      this.after = value == null ? List.of() : value;
      return this;
    }

    /**
     * An event trigger as a map: {@code {topic: orders, key: "json:orderId", coalesce: 30s,
     * ratePerSecond: 100}}; {@code key} defaults to {@code key}.
     */
    public Builder event(Map<String, ?> spec) {
      this.eventSpec = spec;
      return this;
    }

    /**
     * A condition trigger as a map: {@code {type: row-count, every: 5m, debounce: 2, params:
     * {..}}}; {@code debounce} defaults to 1, {@code params} to {@code {}}.
     */
    public Builder condition(Map<String, ?> spec) {
      this.conditionSpec = spec;
      return this;
    }

    /** All non-cron trigger settings at once, in the shape of {@link #triggerSpec()}. */
    @SuppressWarnings("unchecked")
    public Builder triggerSpec(Map<String, ?> spec) {
      if (spec == null) {
        return this;
      }
      for (Map.Entry<String, ?> e : spec.entrySet()) {
        switch (e.getKey()) {
          case "after" -> {
            if (e.getValue() instanceof List<?> l) {
              after(l);
            } else {
              problems.add(new Problem("after", e.getValue(), "must be a list of task ids"));
            }
          }
          case "event", "condition" -> {
            if (e.getValue() instanceof Map<?, ?> m) {
              if (e.getKey().equals("event")) {
                event((Map<String, ?>) m);
              } else {
                condition((Map<String, ?>) m);
              }
            } else {
              problems.add(new Problem(e.getKey(), e.getValue(), "must be a mapping"));
            }
          }
          default ->
              problems.add(
                  new Problem(
                      e.getKey(), e.getValue(), "unknown trigger (after, event, condition)"));
        }
      }
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
      boolean hasCron = cron != null && !cron.isBlank();
      List<String> upstreams = buildAfter(all);
      EventTrigger ev = eventSpec == null ? null : buildEvent(all);
      ConditionTrigger cond = conditionSpec == null ? null : buildCondition(all);
      boolean other = !after.isEmpty() || eventSpec != null || conditionSpec != null;
      // Counted on what was declared, so that an invalid second trigger is still reported.
      int declared =
          (hasCron ? 1 : 0)
              + (after.isEmpty() ? 0 : 1)
              + (eventSpec == null ? 0 : 1)
              + (conditionSpec == null ? 0 : 1);
      if (declared > 1) {
        all.add(
            new Problem(
                "trigger",
                declared + " triggers",
                "a task has exactly one trigger: schedule.cron, after, event or condition"));
      }
      // A zone is only needed to compute windows from the clock (cron, condition); dependency
      // windows are copied from the upstream and event windows come from the record.
      boolean zoneRequired = hasCron || conditionSpec != null || !other;
      ZoneId zoneId = buildZone(all, zoneRequired);
      WindowKind kind = buildWindow(all);
      CronTrigger trigger = hasCron || !other ? buildCron(all, zoneId, kind) : null;
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
                version,
                trigger != null ? trigger.window() : kind,
                trigger != null ? trigger.zone() : zoneId,
                upstreams,
                ev,
                cond);
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

    private ZoneId buildZone(List<Problem> all, boolean required) {
      if (zone == null || zone.isBlank()) {
        if (required) {
          all.add(
              new Problem(
                  "schedule.zone", zone, "is required (an IANA zone such as Asia/Shanghai)"));
          return null;
        }
        return ZoneOffset.UTC;
      }
      try {
        return ZoneId.of(zone.trim());
      } catch (DateTimeException e) {
        all.add(new Problem("schedule.zone", zone, "is not an IANA time zone"));
        return null;
      }
    }

    private WindowKind buildWindow(List<Problem> all) {
      try {
        return WindowKind.valueOf(Objects.requireNonNull(window).trim().toUpperCase(Locale.ROOT));
      } catch (RuntimeException e) {
        all.add(
            new Problem(
                "schedule.window", window, "must be DAILY, HOURLY, WEEKLY, MONTHLY or EVERY_FIRE"));
        return null;
      }
    }

    private CronTrigger buildCron(List<Problem> all, ZoneId zoneId, WindowKind kind) {
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

    private List<String> buildAfter(List<Problem> all) {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < after.size(); i++) {
        Object o = after.get(i);
        if (o instanceof String s) {
          out.add(s.trim());
        } else {
          all.add(new Problem("after[" + i + "]", o, "must be a task id"));
        }
      }
      return out;
    }

    private EventTrigger buildEvent(List<Problem> all) {
      int before = all.size();
      unknownKeys(
          all, "event", eventSpec, java.util.Set.of("topic", "key", "coalesce", "ratePerSecond"));
      String topic = string(all, "event.topic", eventSpec.get("topic"));
      if (topic == null) {
        all.add(new Problem("event.topic", null, "is required"));
      } else if (!EventTrigger.TOPIC_PATTERN.matcher(topic).matches()) {
        all.add(
            new Problem(
                "event.topic", topic, "must match " + EventTrigger.TOPIC_PATTERN.pattern()));
      }
      EventKey key = null;
      Object keyText = eventSpec.get("key");
      try {
        key = EventKey.parse("event.key", keyText == null ? "key" : String.valueOf(keyText));
      } catch (InvalidTaskException e) {
        all.addAll(e.problems());
      }
      Duration coalesce = Duration.ZERO;
      Object c = eventSpec.get("coalesce");
      if (c != null) {
        coalesce = duration("event.coalesce", String.valueOf(c), all);
        if (coalesce != null && (coalesce.isNegative() || coalesce.compareTo(MAX_CATCHUP) > 0)) {
          all.add(new Problem("event.coalesce", c, "must be between 0s and 7d"));
        }
      }
      double rate = 0;
      Object r = eventSpec.get("ratePerSecond");
      if (r != null) {
        try {
          rate = Double.parseDouble(String.valueOf(r));
        } catch (NumberFormatException e) {
          rate = -1;
        }
        if (!(rate > 0) || Double.isInfinite(rate)) {
          all.add(new Problem("event.ratePerSecond", r, "must be a positive number"));
        }
      }
      return all.size() == before ? new EventTrigger(topic, key, coalesce, rate) : null;
    }

    private ConditionTrigger buildCondition(List<Problem> all) {
      int before = all.size();
      unknownKeys(
          all, "condition", conditionSpec, java.util.Set.of("type", "every", "debounce", "params"));
      String type = string(all, "condition.type", conditionSpec.get("type"));
      if (type == null) {
        all.add(new Problem("condition.type", null, "is required"));
      } else if (!HANDLER_PATTERN.matcher(type).matches()) {
        all.add(new Problem("condition.type", type, "must match " + HANDLER_PATTERN.pattern()));
      }
      Object e = conditionSpec.get("every");
      Duration every = null;
      if (e == null) {
        all.add(new Problem("condition.every", null, "is required (e.g. 5m)"));
      } else {
        every = duration("condition.every", String.valueOf(e), all);
        if (every != null
            && (every.compareTo(ConditionTrigger.MIN_EVERY) < 0
                || every.compareTo(MAX_TIMEOUT) > 0)) {
          all.add(new Problem("condition.every", e, "must be between 1s and 24h"));
        }
      }
      int debounce = 1;
      Object d = conditionSpec.get("debounce");
      if (d != null) {
        try {
          debounce = Integer.parseInt(String.valueOf(d).trim());
        } catch (NumberFormatException ex) {
          debounce = -1;
        }
        if (debounce < 1 || debounce > ConditionTrigger.MAX_DEBOUNCE) {
          all.add(
              new Problem(
                  "condition.debounce",
                  d,
                  "must be a whole number from 1 to " + ConditionTrigger.MAX_DEBOUNCE));
        }
      }
      String params = "{}";
      Object p = conditionSpec.get("params");
      if (p instanceof Map<?, ?> m) {
        try {
          params = JSON.writeValueAsString(m);
        } catch (JsonProcessingException ex) {
          all.add(new Problem("condition.params", null, "cannot be written as JSON"));
        }
      } else if (p instanceof String text) {
        params = text;
        List<Problem> own = new ArrayList<>();
        checkParams(own, params);
        own.forEach(q -> all.add(new Problem("condition.params", q.value(), q.message())));
      } else if (p != null) {
        all.add(new Problem("condition.params", p, "must be a mapping"));
      }
      return all.size() == before ? new ConditionTrigger(type, every, debounce, params) : null;
    }

    private static void unknownKeys(
        List<Problem> all, String prefix, Map<String, ?> spec, java.util.Set<String> known) {
      for (Map.Entry<String, ?> e : spec.entrySet()) {
        if (!known.contains(e.getKey())) {
          all.add(
              new Problem(
                  prefix + "." + e.getKey(),
                  e.getValue(),
                  "unknown key (known: "
                      + String.join(", ", new java.util.TreeSet<>(known))
                      + ")"));
        }
      }
    }

    private static String string(List<Problem> all, String field, Object value) {
      if (value == null) {
        return null;
      }
      if (value instanceof Map<?, ?> || value instanceof List<?>) {
        all.add(new Problem(field, value, "must be a single value"));
        return null;
      }
      String s = String.valueOf(value).trim();
      return s.isEmpty() ? null : s;
    }

    private static Duration duration(String field, String value, List<Problem> all) {
      try {
        return Durations.parse(field, value);
      } catch (InvalidValueException e) {
        all.add(e.problem());
        return null;
      }
    }
  }
}
