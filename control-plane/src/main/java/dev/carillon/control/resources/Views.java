package dev.carillon.control.resources;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.client.model.CheckpointView;
import dev.carillon.client.model.EffectView;
import dev.carillon.client.model.EventView;
import dev.carillon.client.model.FireView;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.OutcomeView;
import dev.carillon.client.model.TaskView;
import dev.carillon.client.model.TriggerView;
import dev.carillon.control.web.JsonBodies;
import dev.carillon.model.Durations;
import dev.carillon.model.instance.EventText;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.SavedCheckpoint;
import dev.carillon.model.schedule.FireTime;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.DependencyTrigger;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TimeTrigger;
import dev.carillon.spec.RetryPolicyJson;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.TaskStore;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/** Domain values as wire records. Pure. */
final class Views {
  private static final DateTimeFormatter LOCAL =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ssxxx");

  private Views() {}

  /** The instances with their times also on their tasks' clocks (one query for the zones). */
  static List<InstanceView> instances(List<Instance> rows, TaskStore tasks) {
    Map<String, ZoneId> zones =
        tasks.zones(rows.stream().map(Instance::taskId).collect(Collectors.toSet()));
    return rows.stream().map(i -> instance(i, zones.get(i.taskId()), null, null, null)).toList();
  }

  /** One instance as a list shows it: its times also on its task's clock, no checkpoints. */
  static InstanceView instance(Instance i, TaskStore tasks) {
    return instances(List.of(i), tasks).get(0);
  }

  /** One instance with its attempts' checkpoints and effects ({@code GET /instances/{id}}). */
  static InstanceView instance(
      Instance i,
      TaskStore tasks,
      List<SavedCheckpoint> checkpoints,
      List<EffectRecord> effects,
      Instant archivedAt) {
    ZoneId zone = zone(tasks, i.taskId());
    return instance(i, zone, checkpoints, effects, archivedAt);
  }

  /**
   * @param zone the task's zone, or null when unknown
   * @param checkpoints each attempt's last checkpoint, or null to leave them out (lists)
   * @param effects every attempt's effect records, or null to leave them out (lists)
   */
  static InstanceView instance(
      Instance i,
      ZoneId zone,
      List<SavedCheckpoint> checkpoints,
      List<EffectRecord> effects,
      Instant archivedAt) {
    Map<String, String> local = new LinkedHashMap<>();
    if (zone != null) {
      putLocal(local, "windowStart", i.windowStart(), zone);
      putLocal(local, "windowEnd", i.windowEnd(), zone);
      putLocal(local, "scheduledAt", i.scheduledAt(), zone);
      putLocal(local, "nextAttemptAt", i.nextAttemptAt(), zone);
      putLocal(local, "leaseUntil", i.leaseUntil(), zone);
      putLocal(local, "startedAt", i.startedAt(), zone);
      putLocal(local, "finishedAt", i.finishedAt(), zone);
      putLocal(local, "progressAt", i.progressAt(), zone);
      putLocal(local, "dispatchedAt", i.dispatchedAt(), zone);
      putLocal(local, "createdAt", i.createdAt(), zone);
      putLocal(local, "updatedAt", i.updatedAt(), zone);
      putLocal(local, "archivedAt", archivedAt, zone);
    }
    return new InstanceView(
        i.id(),
        i.taskId(),
        i.windowKey(),
        i.windowStart(),
        i.windowEnd(),
        i.scheduledAt(),
        i.status().name(),
        i.origin().name(),
        i.attempt(),
        i.retryCount(),
        i.maxRetry(),
        i.nextAttemptAt(),
        i.leaseUntil(),
        Durations.format(i.timeout()),
        i.workerId(),
        i.nonRetryable(),
        i.resultSummary(),
        i.resultTruncated(),
        i.resultUri(),
        i.failReason(),
        i.startedAt(),
        i.finishedAt(),
        i.dispatchedAt(),
        i.createdAt(),
        i.updatedAt(),
        i.progress(),
        i.progressAt(),
        i.paramsOverride() == null ? null : json(i.paramsOverride()),
        zone == null ? null : zone.getId(),
        local,
        checkpoints == null ? null : checkpoints.stream().map(c -> checkpoint(c, zone)).toList(),
        effects == null ? null : effects.stream().map(e -> effect(e, zone)).toList(),
        archivedAt);
  }

  /** The zone of one task, or null when it is unknown (deleted, or without a readable zone). */
  static ZoneId zone(TaskStore tasks, String taskId) {
    return tasks.zones(Set.of(taskId)).get(taskId);
  }

  /**
   * {@code at} on {@code zone}'s wall clock keyed by {@code name}: the {@code local} map every view
   * with instants carries; empty when the zone or the instant is null.
   */
  static Map<String, String> locals(ZoneId zone, String name, Instant at) {
    Map<String, String> out = new LinkedHashMap<>();
    if (zone != null) {
      putLocal(out, name, at, zone);
    }
    return out;
  }

  /** {@link #locals(ZoneId, String, Instant)} for two instants, in this order. */
  static Map<String, String> locals(
      ZoneId zone, String name, Instant at, String otherName, Instant other) {
    Map<String, String> out = locals(zone, name, at);
    if (zone != null) {
      putLocal(out, otherName, other, zone);
    }
    return out;
  }

  private static String id(ZoneId zone) {
    return zone == null ? null : zone.getId();
  }

  private static void putLocal(Map<String, String> out, String field, Instant at, ZoneId zone) {
    if (at != null) {
      out.put(field, local(at, zone));
    }
  }

  /** An instant on a zone's wall clock with its offset, e.g. {@code 2026-03-29T10:00:00+02:00}. */
  static String local(Instant at, ZoneId zone) {
    return at.atZone(zone).format(LOCAL);
  }

  /**
   * @param zone the task's zone, or null when unknown
   */
  static CheckpointView checkpoint(SavedCheckpoint c, ZoneId zone) {
    try {
      return new CheckpointView(
          c.attempt(),
          JsonBodies.JSON.readTree(c.stateJson()),
          c.saves(),
          c.workerId(),
          c.savedAt(),
          id(zone),
          locals(zone, "savedAt", c.savedAt()));
    } catch (JsonProcessingException e) {
      // Every stored state was checked as one JSON object when it was saved.
      throw new IllegalStateException(
          "checkpoint of attempt " + c.attempt() + " is not JSON: " + e.getOriginalMessage(), e);
    }
  }

  /**
   * @param zone the task's zone, or null when unknown
   */
  static EffectView effect(EffectRecord e, ZoneId zone) {
    return new EffectView(
        e.key(),
        e.attempt(),
        e.starts(),
        e.workerId(),
        e.done(),
        e.startedAt(),
        e.doneAt(),
        e.result(),
        id(zone),
        locals(zone, "startedAt", e.startedAt(), "doneAt", e.doneAt()));
  }

  /**
   * @param zone the task's zone, or null when unknown
   */
  static EventView event(InstanceEvent e, ZoneId zone) {
    return new EventView(
        e.id(),
        e.instanceId(),
        e.kind().name(),
        e.from() == null ? null : e.from().name(),
        e.to() == null ? null : e.to().name(),
        e.attempt(),
        e.actor(),
        e.reason(),
        e.at(),
        EventText.of(e),
        id(zone),
        locals(zone, "at", e.at()));
  }

  static FireView fire(FireTime f, TaskDefinition d) {
    return fire(f, d.window(), d.zone());
  }

  static FireView fire(FireTime f, WindowKind window, ZoneId zone) {
    return new FireView(
        f.instant(),
        local(f.instant(), zone),
        f.nominal().toString(),
        window.windowOf(f.instant(), zone).key(),
        f.adjustment().name(),
        f.dstNote(zone).orElse(null));
  }

  /**
   * @param last the task's most recently finished instance, if any
   * @param now when "next fire" is counted from
   */
  static TaskView task(LoadedTask t, Optional<Instance> last, Instant now) {
    ZoneId zone = t.definition().map(TaskDefinition::zone).orElse(null);
    OutcomeView outcome =
        last.map(
                i ->
                    new OutcomeView(
                        i.id(),
                        i.windowKey(),
                        i.status().name(),
                        i.finishedAt(),
                        id(zone),
                        locals(zone, "finishedAt", i.finishedAt())))
            .orElse(null);
    if (t.definition().isEmpty()) {
      return new TaskView(
          t.id(),
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          null,
          false,
          t.version(),
          null,
          outcome,
          t.error().map(Throwable::getMessage).orElse("invalid"));
    }
    TaskDefinition d = t.definition().get();
    FireView next = null;
    if (d.trigger() instanceof TimeTrigger time && !d.paused()) {
      List<FireTime> fires = time.fireTimesDetailed(now, Instant.MAX, 1);
      next = fires.isEmpty() ? null : fire(fires.get(0), d);
    }
    return new TaskView(
        d.id(),
        d.handler(),
        trigger(d),
        d.zone().getId(),
        d.window().name(),
        d.overlap().name(),
        Durations.format(d.catchup()),
        Durations.format(d.timeout()),
        JsonBodies.JSON.valueToTree(RetryPolicyJson.toSpec(d.retry())),
        json(d.paramsJson()),
        d.paused(),
        d.version(),
        next,
        outcome,
        null);
  }

  static TriggerView trigger(TaskDefinition d) {
    String zone = d.zone().getId();
    if (d.trigger() instanceof CronTrigger cron) {
      return new TriggerView("CRON", cron.cron(), null, null, cron.describe(), zone, Map.of());
    }
    if (d.trigger() instanceof AtTrigger at) {
      return new TriggerView(
          "AT", null, at.at(), null, at.describe(), zone, locals(d.zone(), "at", at.at()));
    }
    if (d.trigger() instanceof DependencyTrigger dep) {
      return new TriggerView(
          "DEPENDENCY",
          null,
          null,
          dep.upstreams(),
          "after " + String.join(", ", dep.upstreams()) + " succeed in the same window",
          zone,
          Map.of());
    }
    if (d.trigger() instanceof EventTrigger event) {
      return new TriggerView(
          "EVENT", null, null, null, "each record on Kafka topic " + event.topic(), zone, Map.of());
    }
    ConditionTrigger condition = (ConditionTrigger) d.trigger();
    return new TriggerView(
        "CONDITION",
        null,
        null,
        null,
        "condition " + condition.type() + " polled every " + Durations.format(condition.every()),
        zone,
        Map.of());
  }

  static JsonNode json(String text) {
    try {
      return JsonBodies.JSON.readTree(text);
    } catch (JsonProcessingException e) {
      return JsonBodies.JSON.getNodeFactory().textNode(text);
    }
  }
}
