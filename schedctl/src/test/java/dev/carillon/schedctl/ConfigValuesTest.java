package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.spec.TuningJson;
import org.junit.jupiter.api.Test;

/**
 * The CLI's lines for every bad-input path. The rules themselves are tested in common-model ({@code
 * TuningJsonTest}); here we prove the CLI uses them and keeps key, field and value.
 */
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
                .problems())
        .singleElement()
        .asString()
        .startsWith("retry/default: retry.delays[0]='99999999999999999d': not a duration");
    assertThat(ConfigValues.check("retry/default", "  ").problems())
        .containsExactly("retry/default: a JSON value is required (unset removes)");
  }

  @Test
  void rate_limits_need_every_field_in_the_retry_services_ranges() {
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
            "ratelimit/global: extra='1': unknown field (known: [burst, maxPerScan, perSecond,"
                + " perTaskPerSecond])",
            "ratelimit/global: perSecond='0': must be a number more than 0 and at most 100000",
            "ratelimit/global: burst='1.5': must be a whole number between 1 and 1000000",
            "ratelimit/global: perTaskPerSecond='\"5\"': must be a number more than 0 and at most"
                + " 100000",
            "ratelimit/global: maxPerScan=<missing>: is required; must be a whole number between 1"
                + " and 1000000");
    assertThat(ConfigValues.check("ratelimit/global", "[1,2]").problems())
        .singleElement()
        .asString()
        .startsWith("ratelimit/global: value='[1,2]': must be a JSON object like");
  }

  @Test
  void the_cli_refuses_exactly_what_the_retry_service_refuses() {
    // 500000/s used to pass the CLI's own check (limit 1,000,000) and be rejected by the retry
    // service (limit 100,000): the operator saw "sent" and nothing changed.
    String tooFast =
        "{\"perSecond\":500000,\"burst\":100,\"perTaskPerSecond\":5,\"maxPerScan\":500}";
    assertThat(ConfigValues.check("ratelimit/global", tooFast).valid()).isFalse();
    assertThatThrownBy(() -> TuningJson.parse("ratelimit/global", tooFast))
        .isInstanceOf(InvalidTuningException.class);
  }

  @Test
  void only_the_known_keys_are_accepted() {
    assertThat(ConfigValues.checkKey("retry/default")).isEmpty();
    assertThat(ConfigValues.checkKey("retry/daily-digest")).isEmpty();
    assertThat(ConfigValues.checkKey("ratelimit/global")).isEmpty();
    assertThat(ConfigValues.checkKey("retry/Not A Task"))
        .singleElement()
        .asString()
        .startsWith("key='retry/Not A Task': the task id must match");
    assertThat(ConfigValues.checkKey("backoff/default"))
        .containsExactly(
            "key='backoff/default': must be retry/default, retry/<task-id> or ratelimit/global");
    assertThat(ConfigValues.check("backoff/default", "{}").problems())
        .isEqualTo(ConfigValues.checkKey("backoff/default"));
    assertThat(ConfigValues.checkKey("")).singleElement().asString().contains("is required");
  }

  @Test
  void an_oversized_value_is_refused_before_it_is_parsed() {
    String big = "{\"policy\":\"NONE\",\"x\":\"" + "y".repeat(70_000) + "\"}";
    assertThat(ConfigValues.check("retry/default", big).problems())
        .singleElement()
        .asString()
        .startsWith("retry/default: value='70024 bytes': must be at most 65536 bytes");
  }
}
