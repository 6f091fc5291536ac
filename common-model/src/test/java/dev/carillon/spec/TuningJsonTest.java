package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.retry.ExponentialRetry;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.model.tuning.TuningValue;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Config-topic values read from and written as JSON. */
class TuningJsonTest {

  @Test
  void a_retry_value_parses_to_the_policy() {
    TuningValue v =
        TuningJson.parse(
            "retry/x", "{\"policy\":\"exponential\",\"initial\":\"1s\",\"multiplier\":2}");
    assertThat(v)
        .isEqualTo(
            new TuningValue.RetryOverride(
                new ExponentialRetry(
                    Duration.ofSeconds(1), 2.0, ExponentialRetry.DEFAULT_CAP, 0.0, 3)));
  }

  @Test
  void a_bad_retry_value_names_the_key_the_field_and_the_value() {
    assertThatThrownBy(
            () -> TuningJson.parse("retry/x", "{\"policy\":\"DELAYED\",\"delays\":[\"5m\",\"x\"]}"))
        .isInstanceOfSatisfying(
            InvalidTuningException.class,
            e -> {
              assertThat(e.key()).isEqualTo("retry/x");
              assertThat(e.problems())
                  .extracting(Problem::field)
                  .containsExactly("retry.delays[1]");
              assertThat(e.problems()).extracting(Problem::value).containsExactly("x");
            });
    assertThatThrownBy(() -> TuningJson.parse("retry/default", "not json"))
        .isInstanceOf(InvalidTuningException.class)
        .hasMessageContaining("retry/default");
  }

  @Test
  void a_rate_limit_value_needs_every_field_in_range() {
    assertThat(
            TuningJson.parse(
                "ratelimit/global",
                "{\"perSecond\": 100, \"burst\": 100, \"perTaskPerSecond\": 10, \"maxPerScan\": 500}"))
        .isEqualTo(new TuningValue.RateLimit(RateLimitSettings.DEFAULTS));
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "ratelimit/global",
                    "{\"perSecond\": 0, \"burst\": 1.5, \"perTaskPerSecond\": 10, \"colour\": 1}"))
        .isInstanceOfSatisfying(
            InvalidTuningException.class,
            e ->
                assertThat(e.problems())
                    .extracting(Problem::field)
                    .containsExactlyInAnyOrder("colour", "perSecond", "burst", "maxPerScan"));
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "ratelimit/global",
                    "{\"perSecond\": 0, \"burst\": 1, \"perTaskPerSecond\": 10, \"maxPerScan\": 5}"))
        .hasMessageContaining("perSecond='0': must be a number more than 0 and at most 100000");
  }

  @Test
  void rate_limit_settings_round_trip_through_json() {
    RateLimitSettings s = new RateLimitSettings(2.5, 3, 0.5, 7);
    assertThat(TuningJson.parse("ratelimit/global", TuningJson.toJson(s)))
        .isEqualTo(new TuningValue.RateLimit(s));
    assertThat(s.perTaskBurst()).isEqualTo(1);
  }

  @Test
  void the_canonical_json_is_what_was_validated_and_reads_back_equal() {
    TuningValue retry =
        TuningJson.parse("retry/daily-digest", "{\"policy\":\"delayed\",\"delays\":[\"PT5M\"]}");
    assertThat(TuningJson.toJson(retry))
        .isEqualTo("{\"policy\":\"DELAYED\",\"maxRetries\":3,\"delays\":[\"5m\"]}");
    assertThat(TuningJson.parse("retry/daily-digest", TuningJson.toJson(retry))).isEqualTo(retry);

    TuningValue rate =
        TuningJson.parse(
            "ratelimit/global",
            "{\"maxPerScan\":500,\"burst\":100,\"perSecond\":50,\"perTaskPerSecond\":2.5}");
    assertThat(TuningJson.toJson(rate))
        .isEqualTo(
            "{\"perSecond\":50.0,\"burst\":100,\"perTaskPerSecond\":2.5,\"maxPerScan\":500}");
    assertThat(TuningJson.parse("ratelimit/global", TuningJson.toJson(rate))).isEqualTo(rate);
  }

  @Test
  void an_oversized_value_is_refused_before_parsing_without_echoing_it() {
    String big = "{\"policy\":\"NONE\",\"x\":\"" + "y".repeat(70_000) + "\"}";
    assertThatThrownBy(() -> TuningJson.parse("retry/default", big))
        .isInstanceOfSatisfying(
            InvalidTuningException.class,
            e -> {
              assertThat(e.problems()).extracting(Problem::field).containsExactly("value");
              assertThat(e.getMessage())
                  .contains("must be at most 65536 bytes")
                  .doesNotContain("yyyy");
            });
    // Exactly at the limit is still parsed (and then refused for its content, not its size).
    String atLimit = "\"" + "y".repeat(TuningValue.MAX_VALUE_BYTES - 2) + "\"";
    assertThatThrownBy(() -> TuningJson.parse("retry/default", atLimit))
        .isInstanceOf(InvalidTuningException.class)
        .hasMessageNotContaining("65536");
  }

  @Test
  void trailing_text_and_duplicate_keys_are_refused_for_both_kinds() {
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "retry/default", "{\"policy\":\"NONE\"} {\"policy\":\"IMMEDIATE\"}"))
        .isInstanceOf(InvalidTuningException.class)
        .hasMessageContaining("retry=");
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "ratelimit/global",
                    "{\"perSecond\":1,\"burst\":1,\"perTaskPerSecond\":1,\"maxPerScan\":1} x"))
        .isInstanceOf(InvalidTuningException.class)
        .hasMessageContaining("not JSON");
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "ratelimit/global",
                    "{\"perSecond\":1,\"perSecond\":9,\"burst\":1,\"perTaskPerSecond\":1,"
                        + "\"maxPerScan\":1}"))
        .isInstanceOf(InvalidTuningException.class)
        .hasMessageContaining("Duplicate field 'perSecond'");
  }

  @Test
  void a_duration_too_large_to_represent_is_a_problem_not_a_crash() {
    // This used to throw ArithmeticException, which stopped the retry service's config listener.
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "retry/default",
                    "{\"policy\":\"DELAYED\",\"delays\":[\"99999999999999999d\"]}"))
        .isInstanceOfSatisfying(
            InvalidTuningException.class,
            e ->
                assertThat(e.problems())
                    .extracting(Problem::field)
                    .containsExactly("retry.delays[0]"));
  }

  @Test
  void rate_limit_problems_show_each_value_as_written_with_its_rule() {
    assertThatThrownBy(
            () ->
                TuningJson.parse(
                    "ratelimit/global",
                    "{\"perSecond\":200000,\"burst\":10000000000,\"perTaskPerSecond\":\"5\","
                        + "\"maxPerScan\":0}"))
        .isInstanceOfSatisfying(
            InvalidTuningException.class,
            e ->
                assertThat(e.problems())
                    .map(Problem::toString)
                    .containsExactlyInAnyOrder(
                        "perSecond='200000': must be a number more than 0 and at most 100000",
                        "burst='10000000000': must be a whole number between 1 and 1000000",
                        "perTaskPerSecond='\"5\"': must be a number more than 0 and at most 100000",
                        "maxPerScan='0': must be a whole number between 1 and 1000000"));
    assertThatThrownBy(() -> TuningJson.parse("ratelimit/global", "[1,2]"))
        .hasMessageContaining("must be a JSON object like {\"perSecond\":100");
  }
}
