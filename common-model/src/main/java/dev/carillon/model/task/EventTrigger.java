package dev.carillon.model.task;

import dev.carillon.model.Durations;
import dev.carillon.model.schedule.WindowKind;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * An event trigger: every record on {@code topic} becomes an instance whose window key is derived
 * from the record ({@link EventKey}), so duplicates and redeliveries never run twice.
 *
 * @param topic the Kafka topic, {@code [a-zA-Z0-9._-]{1,249}}
 * @param key how a record names its window
 * @param coalesce a bucket per key: records of one key within one bucket of this length share one
 *     instance; {@link Duration#ZERO} for none; at most 7 days
 * @param ratePerSecond the most instances this task may create per second; 0 for no limit. Records
 *     beyond it wait in the topic (they are not dropped)
 * @param window the window kind the task is shown and joined under (a record names the window)
 * @param zone the zone the task's windows are shown in
 * @throws InvalidTaskException naming each broken field ({@code event.topic}, ...) and its value
 */
public record EventTrigger(
    String topic,
    EventKey key,
    Duration coalesce,
    double ratePerSecond,
    WindowKind window,
    ZoneId zone)
    implements Trigger {
  public static final Pattern TOPIC_PATTERN = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  public EventTrigger {
    List<Problem> problems = new ArrayList<>();
    TaskRules.check(problems, "event.topic", topic, TaskRules.topic(topic));
    TaskRules.required(problems, "event.key", key);
    if (TaskRules.required(problems, "event.coalesce", coalesce)) {
      TaskRules.check(
          problems, "event.coalesce", Durations.format(coalesce), TaskRules.coalesce(coalesce));
    }
    if (ratePerSecond != 0) {
      TaskRules.check(
          problems, "event.ratePerSecond", ratePerSecond, TaskRules.ratePerSecond(ratePerSecond));
    }
    TaskRules.required(problems, "schedule.window", window);
    TaskRules.required(problems, "schedule.zone", zone);
    TaskRules.throwIfAny(null, problems);
  }

  @Override
  public TriggerKind kind() {
    return TriggerKind.EVENT;
  }

  /** Whether records of one key are coalesced into buckets. */
  public boolean coalesces() {
    return !coalesce.isZero();
  }
}
