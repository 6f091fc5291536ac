package dev.carillon.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
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

  @Test
  void a_short_alert_secret_is_refused_without_printing_it_and_a_good_one_is_masked() {
    Map<String, String> base =
        Map.of(
            "db.url", "jdbc:postgresql://db:5432/carillon",
            "kafka.bootstrap", "kafka:9092",
            "zk.connect", "zk:2181");
    Map<String, String> weak = new java.util.HashMap<>(base);
    weak.put("retry.alert-secret", "hunter2");
    assertThatThrownBy(() -> RetrySettings.from(Config.of(weak)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("retry.alert-secret")
        .hasMessageContaining("at least 16 characters, had 7")
        .hasMessageNotContaining("hunter2");

    Map<String, String> strong = new java.util.HashMap<>(base);
    strong.put("retry.alert-secret", "correct-horse-battery-staple");
    RetrySettings settings = RetrySettings.from(Config.of(strong));
    assertThat(settings.alertSecret()).contains("correct-horse-battery-staple");
    assertThat(settings.describe()).contains("alertSecret=****").doesNotContain("horse");
  }
}
