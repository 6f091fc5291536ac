package dev.carillon.model.tuning;

import java.time.Instant;

/**
 * One record of the config topic as read.
 *
 * @param key the record key (null when a producer wrote none)
 * @param value the value as text, or null for a tombstone (the key was unset)
 * @param offset its offset in its partition: the version of what it sets
 * @param at the record's timestamp
 * @param actor who wrote it (the {@code carillon-actor} header: {@code api:<principal>}, {@code
 *     schedctl:<user>}), or null when the producer did not say
 * @param signature the {@link ConfigSigner#HEADER} header, or null when the record is unsigned
 */
public record ConfigRecord(
    String key,
    String value,
    int partition,
    long offset,
    Instant at,
    String actor,
    String signature) {

  /** A record without a signature. */
  public ConfigRecord(
      String key, String value, int partition, long offset, Instant at, String actor) {
    this(key, value, partition, offset, at, actor, null);
  }
}
