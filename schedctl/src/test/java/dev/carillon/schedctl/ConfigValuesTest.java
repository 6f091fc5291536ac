package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConfigValuesTest {
  @Test
  void a_retry_policy_is_read_by_the_model_and_sent_in_canonical_form() {
    ConfigValues.Checked c =
        ConfigValues.check("retry/daily-digest", "{\"policy\":\"delayed\",\"delays\":[\"PT5M\"]}");
    assertThat(c.problems()).isEmpty();
    assertThat(c.canonicalJson())
        .isEqualTo("{\"policy\":\"DELAYED\",\"maxRetries\":3,\"delays\":[\"5m\"]}");
  }

  @Test
  void a_bad_retry_policy_names_the_key_the_field_and_the_value() {
    assertThat(ConfigValues.check("retry/default", "{\"policy\":\"SOMETIMES\"}").problems())
        .singleElement()
        .asString()
        .startsWith("retry/default: retry.policy='SOMETIMES': must be one of");
    assertThat(ConfigValues.check("retry/default", "{\"policy\":").problems())
        .singleElement()
        .asString()
        .startsWith("retry/default: retry='{\"policy\":': not a JSON object");
    assertThat(
            ConfigValues.check(
                    "retry/default", "{\"policy\":\"DELAYED\",\"delays\":[\"99999999999999999d\"]}")
                .valid())
        .isFalse();
  }

  @Test
  void rate_limits_need_every_field_positive_and_whole_where_counted() {
    ConfigValues.Checked ok =
        ConfigValues.check(
            "ratelimit/global",
            "{\"burst\":100,\"perSecond\":50,\"perTaskPerSecond\":2.5,\"maxPerScan\":500}");
    assertThat(ok.problems()).isEmpty();
    assertThat(ok.canonicalJson())
        .isEqualTo(
            "{\"perSecond\":50.0,\"burst\":100,\"perTaskPerSecond\":2.5,\"maxPerScan\":500}");

    assertThat(
            ConfigValues.check(
                    "ratelimit/global",
                    "{\"perSecond\":0,\"burst\":1.5,\"perTaskPerSecond\":\"5\",\"extra\":1}")
                .problems())
        .containsExactlyInAnyOrder(
            "ratelimit/global: extra=1: unknown key (known: perSecond, burst, perTaskPerSecond,"
                + " maxPerScan)",
            "ratelimit/global: perSecond=0: must be a number more than 0 and at most 1000000",
            "ratelimit/global: burst=1.5: must be a whole number more than 0 and at most 1000000",
            "ratelimit/global: perTaskPerSecond=\"5\": must be a number more than 0 and at most"
                + " 1000000",
            "ratelimit/global: maxPerScan=<missing>: is required; must be a whole number more than"
                + " 0 and at most 1000000");
    assertThat(ConfigValues.check("ratelimit/global", "[1,2]").problems())
        .singleElement()
        .asString()
        .startsWith("ratelimit/global: must be a JSON object");
  }

  @Test
  void only_the_known_keys_are_accepted() {
    assertThat(ConfigValues.checkKey("retry/default")).isEmpty();
    assertThat(ConfigValues.checkKey("retry/daily-digest")).isEmpty();
    assertThat(ConfigValues.checkKey("ratelimit/global")).isEmpty();
    assertThat(ConfigValues.checkKey("retry/Not A Task"))
        .singleElement()
        .asString()
        .contains("task id 'Not A Task' must match");
    assertThat(ConfigValues.checkKey("backoff/default"))
        .singleElement()
        .asString()
        .startsWith("unknown config key 'backoff/default'");
  }

  @Test
  void an_oversized_value_is_refused_before_it_is_parsed() {
    String big = "{\"policy\":\"NONE\",\"x\":\"" + "y".repeat(70_000) + "\"}";
    assertThat(ConfigValues.check("retry/default", big).problems())
        .singleElement()
        .asString()
        .contains("at most 65536");
  }
}
