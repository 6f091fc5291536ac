package dev.carillon.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RetrySettingsTest {
  @Test
  void keys_plus_the_common_keys_are_exactly_what_from_reads() {
    Config c =
        Config.of(
            Map.of(
                "db.url", "jdbc:postgresql://db:5432/carillon",
                "kafka.bootstrap", "kafka:9092",
                "zk.connect", "zk:2181"));
    RetrySettings.from(c);
    List<String> expected = new ArrayList<>(CommonSettings.KEYS);
    expected.addAll(RetrySettings.KEYS);
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(expected);
  }
}
