package dev.carillon.model.task;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An event trigger: every record on {@code topic} becomes an instance whose window key is derived
 * from the record ({@link EventKey}), so duplicates and redeliveries never run twice.
 *
 * @param topic the Kafka topic, {@code [a-zA-Z0-9._-]{1,249}}
 * @param key how a record names its window
 * @param coalesce a bucket per key: records of one key within one bucket of this length share one
 *     instance; {@link Duration#ZERO} for none
 * @param ratePerSecond the most instances this task may create per second; 0 for no limit. Records
 *     beyond it wait in the topic (they are not dropped)
 */
public record EventTrigger(String topic, EventKey key, Duration coalesce, double ratePerSecond) {
  public static final Pattern TOPIC_PATTERN = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  public EventTrigger {
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(coalesce, "coalesce");
    if (!TOPIC_PATTERN.matcher(topic).matches()) {
      throw new IllegalArgumentException("topic must match " + TOPIC_PATTERN.pattern());
    }
    if (coalesce.isNegative()) {
      throw new IllegalArgumentException("coalesce must not be negative");
    }
    if (!(ratePerSecond >= 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("ratePerSecond must be 0 or positive");
    }
  }

  /** Whether records of one key are coalesced into buckets. */
  public boolean coalesces() {
    return !coalesce.isZero();
  }
}
