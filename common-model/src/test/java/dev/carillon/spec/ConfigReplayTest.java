package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.tuning.ConfigRecord;
import dev.carillon.model.tuning.ConfigSigner;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConfigReplayTest {
  private final List<ConfigRecord> records = new ArrayList<>();

  private void record(String key, String value) {
    records.add(new ConfigRecord(key, value, 0, records.size(), Instant.EPOCH, "test"));
  }

  @Test
  void a_rejected_record_leaves_the_value_before_it_in_force_and_is_listed_apart() {
    record("retry/digest", "{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}");
    record("retry/digest", "{\"policy\":\"SOMETIMES\"}");
    record(
        "ratelimit/global",
        "{\"perSecond\":50,\"burst\":100,\"perTaskPerSecond\":5,\"maxPerScan\":500}");
    record("retry/default", "{\"policy\":\"NONE\"}");
    record("retry/default", null);
    record("nonsense/key", "{}");
    record(null, "{}");

    ConfigReplay replay = ConfigReplay.of(records);

    assertThat(replay.inForce()).containsOnlyKeys("retry/digest", "ratelimit/global");
    ConfigReplay.InForce digest = replay.inForce().get("retry/digest");
    assertThat(digest.record().offset())
        .as("the valid record before the rejected one")
        .isEqualTo(0);
    assertThat(TuningJson.toJson(digest.value()))
        .contains("\"policy\":\"IMMEDIATE\"")
        .contains("\"maxRetries\":2");
    assertThat(replay.rejected()).extracting(r -> r.record().offset()).containsExactly(1L, 5L, 6L);
    assertThat(replay.rejectedOf("retry/digest").get(0).problems())
        .singleElement()
        .asString()
        .contains("SOMETIMES");
    assertThat(replay.rejected().get(1).problems())
        .singleElement()
        .asString()
        .contains("nonsense/key");
  }

  @Test
  void a_tombstone_unsets_and_a_later_valid_record_replaces() {
    record("retry/a", "{\"policy\":\"IMMEDIATE\",\"maxRetries\":1}");
    record("retry/a", null);
    record("retry/b", "{\"policy\":\"IMMEDIATE\",\"maxRetries\":1}");
    record("retry/b", "{\"policy\":\"IMMEDIATE\",\"maxRetries\":3}");
    ConfigReplay replay = ConfigReplay.of(records);
    assertThat(replay.inForce()).containsOnlyKeys("retry/b");
    assertThat(replay.inForce().get("retry/b").record().offset()).isEqualTo(3);
    assertThat(replay.rejected()).isEmpty();
  }

  @Test
  void with_signing_on_an_unsigned_or_foreign_record_is_rejected_as_the_retry_service_rejects_it() {
    ConfigSigner signer = ConfigSigner.fromSecretFile("replay-secret-0123456789-0123456789-xyz");
    ConfigSigner stranger = ConfigSigner.fromSecretFile("other-secret-0123456789-0123456789-xyz");
    String delayed = "{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}";
    String flood = "{\"policy\":\"IMMEDIATE\",\"maxRetries\":100}";
    records.add(
        new ConfigRecord(
            "retry/digest",
            delayed,
            0,
            0,
            Instant.EPOCH,
            "test",
            signer.sign("retry/digest", delayed)));
    records.add(new ConfigRecord("retry/digest", flood, 0, 1, Instant.EPOCH, "intruder", null));
    records.add(
        new ConfigRecord(
            "retry/digest",
            flood,
            0,
            2,
            Instant.EPOCH,
            "intruder",
            stranger.sign("retry/digest", flood)));

    ConfigReplay replay = ConfigReplay.of(records, Optional.of(signer));
    assertThat(replay.inForce().get("retry/digest").record().offset()).isZero();
    assertThat(replay.rejected()).hasSize(2);
    assertThat(replay.rejected().get(0).problems())
        .containsExactly(signer.problem("retry/digest", flood, null).orElseThrow());
    assertThat(replay.rejected().get(1).problems().get(0)).contains("does not match");
    // Without a signer the same records replay as before: the last one wins.
    assertThat(ConfigReplay.of(records).inForce().get("retry/digest").record().offset())
        .isEqualTo(2);
  }
}
