package dev.carillon.model.task;

import dev.carillon.model.Durations;
import java.time.Duration;
import java.util.Objects;

/**
 * How an event record becomes a window key, so that a redelivered or duplicated record maps to the
 * same window and can never run twice.
 *
 * <ul>
 *   <li>{@code key}: the record's Kafka key;
 *   <li>{@code json:<field>}: a top-level field of the record's JSON value (e.g. {@code
 *       json:orderId});
 *   <li>{@code bucket:<duration>}: the record timestamp truncated to the duration (e.g. {@code
 *       bucket:5m}), one window per bucket.
 * </ul>
 *
 * @param kind which part of the record is used
 * @param field the JSON field for {@link Kind#JSON}, else {@code null}
 * @param bucket the bucket length for {@link Kind#BUCKET}, else {@code null}
 */
public record EventKey(Kind kind, String field, Duration bucket) {
  /** Which part of the record names the window. */
  public enum Kind {
    /** The Kafka record key. */
    KEY,
    /** A top-level field of the JSON record value. */
    JSON,
    /** A time bucket of the record timestamp. */
    BUCKET
  }

  public EventKey {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.JSON && (field == null || field.isBlank())) {
      throw new IllegalArgumentException("json key needs a field name");
    }
    if (kind == Kind.BUCKET
        && (bucket == null || bucket.isNegative() || bucket.isZero() || bucket.toMillis() == 0)) {
      throw new IllegalArgumentException("bucket key needs a positive duration");
    }
  }

  /**
   * Parses {@code key}, {@code json:<field>} or {@code bucket:<duration>}.
   *
   * @param fieldName the field being parsed, for the problem (e.g. {@code event.key})
   * @throws InvalidTaskException naming the field and value when the text is none of these
   */
  public static EventKey parse(String fieldName, String text) {
    String t = text == null ? "" : text.trim();
    if (t.equals("key")) {
      return new EventKey(Kind.KEY, null, null);
    }
    if (t.startsWith("json:") && t.length() > "json:".length()) {
      return new EventKey(Kind.JSON, t.substring("json:".length()).trim(), null);
    }
    if (t.startsWith("bucket:")) {
      Duration d = Durations.tryParse(t.substring("bucket:".length()).trim()).orElse(null);
      if (d != null && d.toMillis() > 0) {
        return new EventKey(Kind.BUCKET, null, d);
      }
    }
    throw new InvalidTaskException(
        null,
        new Problem(
            fieldName,
            text,
            "must be 'key', 'json:<field>' or 'bucket:<duration>' (e.g. bucket:5m)"));
  }

  /** The text form accepted by {@link #parse}. */
  public String text() {
    return switch (kind) {
      case KEY -> "key";
      case JSON -> "json:" + field;
      case BUCKET -> "bucket:" + Durations.format(bucket);
    };
  }
}
