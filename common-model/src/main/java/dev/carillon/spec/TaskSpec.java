package dev.carillon.spec;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TaskRules;
import dev.carillon.model.task.Trigger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads one task mapping into a definition, reporting every problem once, each at its value. A
 * value that cannot be read (a list where a duration belongs) is reported and not checked again;
 * the rules are {@link TaskRules}' and {@link RetrySpec}'s, so the records would say the same.
 *
 * <pre>
 * id: daily-digest
 * handler: digest
 * queue: gpu              # the worker pool; default "default"
 * schedule: { cron: "0 0 8 * * ?", zone: Asia/Shanghai, window: DAILY }
 * overlap: SKIP            # or ALLOW
 * catchup: 1h
 * timeout: 20m
 * retry: { policy: DELAYED, delays: [5m, 15m, 30m], maxRetries: 3 }
 * params: { channel: "#news" }
 * </pre>
 *
 * <p>The handlers {@code exec} and {@code http} are built in: their settings in {@code params.exec}
 * and {@code params.http} are checked here too ({@link AgentParams}).
 *
 * <p>Exactly one trigger: {@code schedule.cron}, {@code at} (one instant with its offset: a
 * one-shot task), {@code after} (a list of task ids), {@code event} or {@code condition}. {@code
 * schedule.zone} is required for cron and condition triggers (their windows come from the clock's
 * local time) and defaults to UTC otherwise; {@code schedule.window} defaults to EVERY_FIRE for a
 * one-shot (its window is its instant) and to DAILY otherwise. {@code paused} is not a spec key: it
 * is operational state.
 */
final class TaskSpec {
  static final Set<String> KEYS =
      Set.of(
          "id",
          "handler",
          "queue",
          "schedule",
          "overlap",
          "catchup",
          "timeout",
          "retry",
          "params",
          "at",
          "after",
          "event",
          "condition");
  static final Set<String> SCHEDULE_KEYS = Set.of("cron", "zone", "window");

  private static final String ONE_TRIGGER =
      "a task has exactly one trigger: schedule.cron, at, after, event or condition";

  private final Node.Mapping task;
  private final Problems p;

  private TaskSpec(Node.Mapping task, Problems problems) {
    this.task = task;
    this.p = problems;
  }

  /**
   * The definition, or empty when {@code problems} gained a problem.
   *
   * @param task the task's mapping
   * @param problems receives every problem of this task
   */
  static Optional<TaskDefinition> read(Node.Mapping task, Problems problems) {
    return new TaskSpec(task, problems).read();
  }

  private Optional<TaskDefinition> read() {
    int before = p.size();
    Function<String, String> unknown = Problems.unknownKey(KEYS);
    p.unknownKeys(
        task,
        "",
        KEYS,
        key ->
            key.equals("paused")
                ? "is not a file key; use 'schedctl pause' and 'schedctl resume'"
                : unknown.apply(key));
    Values.Read<String> id = Values.text(task, "id", "id", p);
    if (!id.broken()) {
      Values.check(p, "id", at("id"), id.value(), TaskRules.id(id.value()));
    }
    Values.Read<String> handler = Values.text(task, "handler", "handler", p);
    if (!handler.broken()) {
      Values.check(
          p, "handler", at("handler"), handler.value(), TaskRules.handler(handler.value()));
    }
    Values.Read<String> queue = Values.text(task, "queue", "queue", p);
    if (queue.present()) {
      Values.check(p, "queue", at("queue"), queue.value(), TaskRules.queue(queue.value()));
    }
    Optional<Trigger> trigger = trigger(id.value());
    OverlapPolicy overlap = overlap();
    Values.Read<Duration> catchup = Values.duration(task, "catchup", "catchup", p);
    if (catchup.present()) {
      Values.check(
          p, "catchup", at("catchup"), text("catchup"), TaskRules.catchup(catchup.value()));
    }
    Values.Read<Duration> timeout = Values.duration(task, "timeout", "timeout", p);
    if (timeout.present()) {
      Values.check(
          p, "timeout", at("timeout"), text("timeout"), TaskRules.timeout(timeout.value()));
    }
    RetryPolicy retry = retry();
    String params = params();
    Node paramsNode = task.get("params");
    if (!handler.broken()
        && handler.value() != null
        && (paramsNode == null || paramsNode instanceof Node.Mapping)) {
      AgentParams.check(handler.value(), (Node.Mapping) paramsNode, at("params"), p);
    }
    if (p.size() != before || trigger.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          TaskDefinition.builder(id.value())
              .handler(handler.value())
              .queue(queue.value() == null ? TaskDefinition.DEFAULT_QUEUE : queue.value())
              .trigger(trigger.get())
              .overlap(overlap)
              .catchup(catchup.value() == null ? TaskDefinition.DEFAULT_CATCHUP : catchup.value())
              .timeout(timeout.value() == null ? TaskDefinition.DEFAULT_TIMEOUT : timeout.value())
              .retry(retry)
              .paramsJson(params)
              .build());
    } catch (InvalidTaskException e) {
      // A backstop: every rule of the record was checked above.
      p.addAll(e.problems(), task);
      return Optional.empty();
    }
  }

  /** The one trigger, or empty when it is missing, doubled or broken (reported). */
  private Optional<Trigger> trigger(String id) {
    Node scheduleNode = task.get("schedule");
    Node.Mapping schedule = scheduleNode instanceof Node.Mapping m ? m : null;
    if (schedule != null) {
      p.unknownKeys(schedule, "schedule.", SCHEDULE_KEYS, Problems.unknownKey(SCHEDULE_KEYS));
    } else if (scheduleNode != null) {
      p.add(
          "schedule",
          scheduleNode,
          scheduleNode.plain(),
          "must be a mapping such as {cron: \"0 0 8 * * ?\", zone: UTC, window: DAILY}");
    }
    Node.Mapping settings = schedule == null ? new Node.Mapping(Map.of(), task.at()) : schedule;
    Values.Read<String> cron = Values.text(settings, "cron", "schedule.cron", p);
    Node at = task.get("at");
    Node after = task.get("after");
    Node event = task.get("event");
    Node condition = task.get("condition");
    List<String> declared = new ArrayList<>();
    if (cron.broken() || (cron.value() != null && !cron.value().isBlank())) {
      declared.add("schedule.cron");
    }
    if (at != null) {
      declared.add("at");
    }
    if (after != null) {
      declared.add("after");
    }
    if (event != null) {
      declared.add("event");
    }
    if (condition != null) {
      declared.add("condition");
    }
    if (declared.size() > 1) {
      p.add("trigger", task, String.join(" + ", declared), ONE_TRIGGER);
    }
    boolean cronKind = declared.isEmpty() || declared.contains("schedule.cron");
    WindowKind window = null;
    ZoneId zone = null;
    Optional<? extends Trigger> cronTrigger = Optional.empty();
    // A schedule that is not a mapping was reported as a whole; its parts are not guessed at.
    if (scheduleNode == null || schedule != null) {
      window = window(settings, at != null ? WindowKind.EVERY_FIRE : WindowKind.DAILY);
      zone = zone(settings, cronKind || condition != null);
      if (cronKind) {
        cronTrigger = cron(settings, cron, zone, window);
      }
    }
    List<Optional<? extends Trigger>> built = new ArrayList<>();
    built.add(cronTrigger);
    if (at != null) {
      built.add(TriggerSpec.at(at, window, zone, p));
    }
    if (after != null) {
      built.add(TriggerSpec.dependency(id, after, window, zone, p));
    }
    if (event != null) {
      built.add(TriggerSpec.event(event, window, zone, p));
    }
    if (condition != null) {
      built.add(TriggerSpec.condition(condition, window, zone, p));
    }
    if (declared.size() > 1) {
      return Optional.empty();
    }
    for (Optional<? extends Trigger> t : built) {
      if (t.isPresent()) {
        return Optional.of(t.get());
      }
    }
    return Optional.empty();
  }

  private WindowKind window(Node.Mapping schedule, WindowKind absent) {
    Values.Read<String> text = Values.text(schedule, "window", "schedule.window", p);
    if (text.broken()) {
      return null;
    }
    if (text.value() == null) {
      return absent;
    }
    try {
      return WindowKind.valueOf(text.value().trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      p.add(
          "schedule.window",
          schedule.get("window"),
          text.value(),
          "must be DAILY, HOURLY, WEEKLY, MONTHLY or EVERY_FIRE");
      return null;
    }
  }

  /**
   * The zone; required when windows come from the clock (cron, condition), UTC otherwise. A
   * dependency task's windows are copied from the upstream and an event task's come from the
   * record.
   */
  private ZoneId zone(Node.Mapping schedule, boolean required) {
    Values.Read<String> text = Values.text(schedule, "zone", "schedule.zone", p);
    if (text.broken()) {
      return null;
    }
    if (text.value() == null || text.value().isBlank()) {
      if (required) {
        p.add(
            "schedule.zone",
            schedule,
            text.value(),
            "is required (an IANA zone such as Asia/Shanghai)");
        return null;
      }
      return ZoneOffset.UTC;
    }
    try {
      return ZoneId.of(text.value().trim());
    } catch (DateTimeException e) {
      p.add("schedule.zone", schedule.get("zone"), text.value(), "is not an IANA time zone");
      return null;
    }
  }

  private Optional<CronTrigger> cron(
      Node.Mapping schedule, Values.Read<String> cron, ZoneId zone, WindowKind window) {
    if (cron.broken()) {
      return Optional.empty();
    }
    if (cron.value() == null || cron.value().isBlank()) {
      p.add("schedule.cron", schedule, cron.value(), "is required");
      return Optional.empty();
    }
    if (zone == null) {
      return Optional.empty(); // the cron's meaning depends on the zone, which was reported
    }
    try {
      CronSchedule parsed = CronSchedule.parse(cron.value(), zone);
      return window == null ? Optional.empty() : Optional.of(new CronTrigger(parsed, window));
    } catch (InvalidValueException e) {
      p.add(e.problem(), schedule.get("cron"));
      return Optional.empty();
    }
  }

  private OverlapPolicy overlap() {
    Values.Read<String> text = Values.text(task, "overlap", "overlap", p);
    if (text.value() == null) {
      return OverlapPolicy.SKIP;
    }
    try {
      return OverlapPolicy.valueOf(text.value().trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      p.add("overlap", at("overlap"), text.value(), "must be SKIP or ALLOW");
      return null;
    }
  }

  private RetryPolicy retry() {
    Node retry = task.get("retry");
    if (retry == null) {
      return RetryPolicy.none();
    }
    if (!(retry instanceof Node.Mapping m)) {
      p.add(
          "retry",
          retry,
          retry.plain(),
          "must be a mapping such as {policy: DELAYED, delays: [5m, 15m], maxRetries: 2}");
      return null;
    }
    return RetrySpec.read("retry", m, p).orElse(null);
  }

  /** The params as compact JSON (the form stored and handed to the agent). */
  private String params() {
    Node params = task.get("params");
    if (params == null) {
      return "{}";
    }
    if (!(params instanceof Node.Mapping m)) {
      p.add("params", params, params.plain(), "must be a mapping (a JSON object) or absent");
      return null;
    }
    String json = Json.write(m.plain());
    TaskRules.params("params", json).ifPresent(q -> p.add(q, params));
    return json;
  }

  private Node at(String key) {
    Node n = task.get(key);
    return n == null ? task : n;
  }

  private String text(String key) {
    return ((Node.Scalar) task.get(key)).text();
  }
}
