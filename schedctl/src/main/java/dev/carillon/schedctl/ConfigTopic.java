package dev.carillon.schedctl;

import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.KafkaUnavailableException;
import dev.carillon.model.tuning.ConfigRecord;
import dev.carillon.model.tuning.ConfigSigner;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The compacted configuration topic as {@code schedctl config} uses it: {@link
 * dev.carillon.kafka.ConfigTopic} with a Kafka that does not answer turned into a {@link
 * CliException} (exit 1) naming Kafka and its bootstrap servers.
 */
final class ConfigTopic {
  /**
   * The latest record of one key.
   *
   * @param value the JSON text, or null for a tombstone (the key was unset)
   */
  record Entry(String key, String value, int partition, long offset, Instant timestamp) {}

  private final dev.carillon.kafka.ConfigTopic topic;
  private final String actor;

  /**
   * @param actor named on every record written
   * @param signer signs every record written, or empty when config signing is off
   */
  ConfigTopic(
      KafkaSettings settings,
      String topic,
      Duration timeout,
      String actor,
      Optional<ConfigSigner> signer) {
    this.topic = new dev.carillon.kafka.ConfigTopic(settings, topic, timeout, signer);
    this.actor = actor;
  }

  /**
   * Sends {@code value} (null: a tombstone) for {@code key} and waits for the acknowledgement.
   *
   * @return the record's offset
   */
  long put(String key, String value) {
    try {
      return topic.put(key, value, actor);
    } catch (KafkaUnavailableException e) {
      throw CliException.unreachable(e.getMessage(), e);
    }
  }

  /**
   * Reads the topic from the beginning to the end offsets it had when the call began and returns
   * the latest record per key, tombstones included, in order of first appearance.
   */
  Map<String, Entry> readAll() {
    List<ConfigRecord> records;
    try {
      records = topic.readAll();
    } catch (KafkaUnavailableException e) {
      throw CliException.unreachable(e.getMessage(), e);
    }
    Map<String, Entry> latest = new LinkedHashMap<>();
    dev.carillon.kafka.ConfigTopic.latest(records)
        .forEach(
            (key, r) ->
                latest.put(key, new Entry(key, r.value(), r.partition(), r.offset(), r.at())));
    return latest;
  }

  /** The keys in {@code entries} whose latest record is a value, not a tombstone. */
  static List<Entry> live(Map<String, Entry> entries) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (e.value() != null) {
        out.add(e);
      }
    }
    return out;
  }
}
