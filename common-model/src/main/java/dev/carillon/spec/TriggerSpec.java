package dev.carillon.spec;

import dev.carillon.model.Durations;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.DependencyTrigger;
import dev.carillon.model.task.EventKey;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.TaskRules;
import dev.carillon.model.task.Trigger;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The non-cron triggers of a task spec, read and written: {@code at: 2026-12-24T08:00:00Z}, {@code
 * after: [a, b]}, {@code event: {topic, key, coalesce, ratePerSecond}} and {@code condition: {type,
 * every, debounce, params}}. The same shape is the store's {@code spec} column. The window kind and
 * zone come from the spec's {@code schedule} mapping and are passed in; null means they could not
 * be read (already reported), and then the trigger's own fields are still checked but no trigger is
 * built.
 */
final class TriggerSpec {
  static final Set<String> EVENT_KEYS = Set.of("topic", "key", "coalesce", "ratePerSecond");
  static final Set<String> CONDITION_KEYS = Set.of("type", "every", "debounce", "params");

  private TriggerSpec() {}

  /**
   * {@code at}: one instant with its offset, {@code 2026-12-24T08:00:00Z} or {@code
   * 2026-12-24T09:00:00+01:00}, a whole second. A local time without an offset is refused rather
   * than read in some zone: the instant must not depend on a guess.
   */
  static Optional<AtTrigger> at(Node node, WindowKind window, ZoneId zone, Problems p) {
    int before = p.size();
    Instant at = null;
    if (!(node instanceof Node.Scalar s) || !(s.value() instanceof String text)) {
      p.add("at", node, node.plain(), "must be an instant such as 2026-12-24T08:00:00Z");
      return Optional.empty();
    }
    try {
      at = OffsetDateTime.parse(text.trim()).toInstant();
    } catch (DateTimeParseException e) {
      p.add(
          "at",
          node,
          text,
          "must be an instant with its offset, e.g. 2026-12-24T08:00:00Z or"
              + " 2026-12-24T09:00:00+01:00");
      return Optional.empty();
    }
    Values.check(p, "at", node, text, TaskRules.at(at));
    Instant instant = at;
    return build(p, before, window, zone, node, () -> new AtTrigger(instant, window, zone));
  }

  /**
   * {@code after}: a list of task ids (or one id).
   *
   * @param taskId the task's id, to refuse a dependency on itself; null when unknown
   */
  static Optional<DependencyTrigger> dependency(
      String taskId, Node after, WindowKind window, ZoneId zone, Problems p) {
    int before = p.size();
    List<String> upstreams = new ArrayList<>();
    if (after instanceof Node.Sequence s) {
      for (int i = 0; i < s.items().size(); i++) {
        Node item = s.items().get(i);
        if (item instanceof Node.Scalar sc && sc.value() instanceof String text) {
          upstreams.add(text.trim());
        } else {
          p.add("after[" + i + "]", item, item.plain(), "must be a task id");
          upstreams.add(null); // reported; skipped by the rules below
        }
      }
    } else if (after instanceof Node.Scalar s) {
      upstreams.add(s.text().trim());
    } else {
      p.add("after", after, after.plain(), "must be a list of task ids");
      return Optional.empty();
    }
    p.addAll(TaskRules.upstreams(taskId, upstreams), wrap("after", after));
    return build(
        p, before, window, zone, after, () -> new DependencyTrigger(upstreams, window, zone));
  }

  /** {@code event}: {@code {topic, key, coalesce, ratePerSecond}}; {@code key} defaults to key. */
  static Optional<EventTrigger> event(Node node, WindowKind window, ZoneId zone, Problems p) {
    if (!(node instanceof Node.Mapping m)) {
      p.add("event", node, node.plain(), "must be a mapping");
      return Optional.empty();
    }
    int before = p.size();
    p.unknownKeys(m, "event.", EVENT_KEYS, Problems.unknownKey(EVENT_KEYS));
    Values.Read<String> topic = Values.trimmed(m, "topic", "event.topic", p);
    if (!topic.broken()) {
      if (topic.value() == null) {
        p.add("event.topic", m, null, "is required");
      } else {
        Values.check(
            p, "event.topic", m.get("topic"), topic.value(), TaskRules.topic(topic.value()));
      }
    }
    Values.Read<String> keyText = Values.text(m, "key", "event.key", p);
    EventKey key = null;
    if (!keyText.broken()) {
      try {
        key = EventKey.parse("event.key", keyText.value() == null ? "key" : keyText.value());
      } catch (InvalidTaskException e) {
        e.problems().forEach(q -> p.add(q, m.get("key")));
      }
    }
    Values.Read<Duration> coalesce = Values.duration(m, "coalesce", "event.coalesce", p);
    if (coalesce.present()) {
      Node c = m.get("coalesce");
      Values.check(p, "event.coalesce", c, c.plain(), TaskRules.coalesce(coalesce.value()));
    }
    double rate = 0;
    Node r = m.get("ratePerSecond");
    if (r != null) {
      Double given = decimal(r);
      rate = given == null ? -1 : given;
      Values.check(p, "event.ratePerSecond", r, r.plain(), TaskRules.ratePerSecond(rate));
    }
    EventKey k = key;
    double perSecond = rate;
    return build(
        p,
        before,
        window,
        zone,
        m,
        () ->
            new EventTrigger(
                topic.value(),
                k,
                coalesce.value() == null ? Duration.ZERO : coalesce.value(),
                perSecond,
                window,
                zone));
  }

  /**
   * {@code condition}: {@code {type, every, debounce, params}}; {@code debounce} defaults to 1,
   * {@code params} to {@code {}} (a mapping, or JSON object text).
   */
  static Optional<ConditionTrigger> condition(
      Node node, WindowKind window, ZoneId zone, Problems p) {
    if (!(node instanceof Node.Mapping m)) {
      p.add("condition", node, node.plain(), "must be a mapping");
      return Optional.empty();
    }
    int before = p.size();
    p.unknownKeys(m, "condition.", CONDITION_KEYS, Problems.unknownKey(CONDITION_KEYS));
    Values.Read<String> type = Values.trimmed(m, "type", "condition.type", p);
    if (!type.broken()) {
      if (type.value() == null) {
        p.add("condition.type", m, null, "is required");
      } else {
        Values.check(
            p,
            "condition.type",
            m.get("type"),
            type.value(),
            TaskRules.conditionType(type.value()));
      }
    }
    Values.Read<Duration> every = Values.duration(m, "every", "condition.every", p);
    if (!every.broken()) {
      Node e = m.get("every");
      Values.check(
          p,
          "condition.every",
          e == null ? m : e,
          e == null ? null : e.plain(),
          TaskRules.every(every.value()));
    }
    int debounce = 1;
    Node d = m.get("debounce");
    if (d != null) {
      Long given = whole(d);
      debounce = given == null || given != given.intValue() ? -1 : given.intValue();
      Values.check(p, "condition.debounce", d, d.plain(), TaskRules.debounce(debounce));
    }
    String params = "{}";
    Node pn = m.get("params");
    if (pn instanceof Node.Mapping pm) {
      params = Json.write(pm.plain());
    } else if (pn instanceof Node.Scalar s && s.value() instanceof String text) {
      params = text;
    } else if (pn != null) {
      p.add("condition.params", pn, pn.plain(), "must be a mapping");
    }
    TaskRules.params("condition.params", params).ifPresent(q -> p.add(q, pn));
    int polls = debounce;
    String paramsJson = params;
    return build(
        p,
        before,
        window,
        zone,
        m,
        () -> new ConditionTrigger(type.value(), every.value(), polls, paramsJson, window, zone));
  }

  /**
   * The spec mapping of a non-cron trigger, the shape {@link #at}, {@link #dependency}, {@link
   * #event} and {@link #condition} read (as under a task, keyed {@code at}, {@code after}, {@code
   * event} or {@code condition}); empty for a cron trigger, whose settings are the {@code
   * schedule}.
   */
  static Map<String, Object> toSpec(Trigger trigger) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (trigger instanceof AtTrigger a) {
      out.put("at", a.at().toString());
    } else if (trigger instanceof DependencyTrigger d) {
      out.put("after", d.upstreams());
    } else if (trigger instanceof EventTrigger e) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("topic", e.topic());
      m.put("key", e.key().text());
      if (e.coalesces()) {
        m.put("coalesce", Durations.format(e.coalesce()));
      }
      if (e.ratePerSecond() > 0) {
        m.put("ratePerSecond", e.ratePerSecond());
      }
      out.put("event", m);
    } else if (trigger instanceof ConditionTrigger c) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("type", c.type());
      m.put("every", Durations.format(c.every()));
      m.put("debounce", c.debounce());
      m.put(
          "params",
          NodeParser.parse(c.paramsJson(), Format.JSON)
              .root()
              .orElseThrow(() -> new IllegalStateException("condition params are a JSON object"))
              .plain());
      out.put("condition", m);
    } else if (!(trigger instanceof CronTrigger)) {
      throw new IllegalArgumentException("unknown trigger " + trigger);
    }
    return out;
  }

  /**
   * The trigger, when nothing was reported since {@code before} and window and zone are known; a
   * rule the record still finds (a backstop: the reader checks the same rules first) is reported at
   * {@code at}.
   */
  private static <T extends Trigger> Optional<T> build(
      Problems p, int before, WindowKind window, ZoneId zone, Node at, Supplier<T> trigger) {
    if (p.size() != before || window == null || zone == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(trigger.get());
    } catch (InvalidTaskException e) {
      e.problems().forEach(q -> p.add(q, at));
      return Optional.empty();
    }
  }

  /** A node holding {@code value} under {@code key}, so that {@code after[i]} paths resolve. */
  private static Node wrap(String key, Node value) {
    return new Node.Mapping(Map.of(key, new Node.Entry(value.at(), value)), value.at());
  }

  private static Double decimal(Node n) {
    Object v = n.plain();
    if (v instanceof Number number) {
      return number.doubleValue();
    }
    if (v instanceof String text) {
      try {
        return Double.parseDouble(text.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }

  private static Long whole(Node n) {
    Object v = n.plain();
    if (v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof String text) {
      try {
        return Long.parseLong(text.trim());
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return null;
  }
}
