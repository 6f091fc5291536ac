package dev.carillon.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TriggerSettingsTest {
  @Test
  void keys_lists_exactly_what_from_reads() {
    Config c = Config.of(Map.of());
    TriggerSettings.from(c);
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(TriggerSettings.KEYS);
  }

  @Test
  void every_listed_key_is_honoured() {
    // A value out of range for each duration/number key must be refused naming that key: proves
    // the string in KEYS is the one the code looks up, not merely a similar one.
    for (String key : TriggerSettings.KEYS) {
      if (key.equals("trigger.topic")) {
        continue; // any text is a valid topic name here
      }
      assertThatThrownBy(() -> TriggerSettings.from(Config.of(Map.of(key, "999999d"))))
          .as(key)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(key);
    }
    assertThat(TriggerSettings.from(Config.of(Map.of("trigger.topic", "t.x"))).topic())
        .isEqualTo("t.x");
    assertThat(TriggerSettings.from(Config.of(Map.of())).tickInterval())
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void create_ahead_is_off_by_default_and_must_stay_below_the_tick_interval() {
    assertThat(TriggerSettings.from(Config.of(Map.of())).createAhead()).isZero();
    assertThat(
            TriggerSettings.from(Config.of(Map.of("trigger.create-ahead", "200ms"))).createAhead())
        .isEqualTo(Duration.ofMillis(200));
    assertThatThrownBy(
            () ->
                TriggerSettings.from(
                    Config.of(Map.of("trigger.create-ahead", "2s", "trigger.tick-interval", "2s"))))
        .isInstanceOf(ConfigException.class)
        .hasMessage(
            "trigger.create-ahead must be at least 0s and less than trigger.tick-interval (2s),"
                + " was 2s")
        // The constructor's refusal is kept, so a stack trace shows where the check is.
        .hasCauseInstanceOf(IllegalArgumentException.class);
  }
}
