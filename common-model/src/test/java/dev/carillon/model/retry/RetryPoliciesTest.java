package dev.carillon.model.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RetryPoliciesTest {

  static Stream<RetryPolicy> everyPolicy() {
    return Stream.of(
        RetryPolicy.none(),
        new ImmediateRetry(2),
        new DelayedRetry(
            List.of(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)), 3),
        new ExponentialRetry(Duration.ofSeconds(90), 1.5, Duration.ofMinutes(45), 0.25, 7),
        new WindowRetry(Duration.ofMinutes(10), Duration.ofMinutes(90), 4));
  }

  private static RetryPolicy read(Map<String, ?> spec) {
    return RetryPolicies.fromSpec("daily-digest", "retry", spec);
  }

  private static Map<String, Object> spec(Object... keysAndValues) {
    Map<String, Object> spec = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      spec.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return spec;
  }

  // Round trips

  @Test
  void a_missing_or_empty_spec_is_the_default_none() {
    assertThat(read(null)).isEqualTo(RetryPolicy.none());
    assertThat(read(Map.of())).isEqualTo(RetryPolicy.none());
  }

  @Test
  void the_policy_name_is_case_insensitive() {
    assertThat(read(spec("policy", "immediate"))).isEqualTo(new ImmediateRetry(3));
    assertThat(read(spec("policy", " Exponential ")).kind()).isEqualTo("EXPONENTIAL");
  }

  @Test
  void omitted_values_take_the_documented_defaults() {
    assertThat(read(spec("policy", "IMMEDIATE")).maxRetries())
        .isEqualTo(RetryPolicy.DEFAULT_MAX_RETRIES);
    assertThat(read(spec("policy", "EXPONENTIAL")))
        .isEqualTo(new ExponentialRetry(Duration.ofMinutes(5), 2.0, Duration.ofDays(7), 0.0, 3));
    assertThat(read(spec("policy", "WINDOW")))
        .isEqualTo(new WindowRetry(Duration.ofMinutes(5), Duration.ZERO, 3));
  }

  @Test
  void durations_may_be_iso_8601_or_short() {
    RetryPolicy policy =
        read(spec("policy", "DELAYED", "delays", List.of("PT5M", "pt1h30m", "1h30m", "500ms")));

    assertThat(((DelayedRetry) policy).delays())
        .containsExactly(
            Duration.ofMinutes(5),
            Duration.ofMinutes(90),
            Duration.ofMinutes(90),
            Duration.ofMillis(500));
  }

  @Test
  void numbers_may_be_given_as_json_numbers_or_as_text() {
    RetryPolicy fromNumbers =
        read(spec("policy", "EXPONENTIAL", "maxRetries", 4L, "multiplier", 3, "jitter", 0.1));
    RetryPolicy fromText =
        read(
            spec("policy", "EXPONENTIAL", "maxRetries", "4", "multiplier", "3.0", "jitter", "0.1"));

    assertThat(fromNumbers).isEqualTo(fromText);
    assertThat(((ExponentialRetry) fromText).multiplier()).isEqualTo(3.0);
    assertThat(fromText.maxRetries()).isEqualTo(4);
  }

  @Test
  void a_duration_object_is_accepted_as_is() {
    assertThat(read(spec("policy", "WINDOW", "delay", Duration.ofMinutes(7))))
        .isEqualTo(new WindowRetry(Duration.ofMinutes(7), Duration.ZERO, 3));
  }

  // Bad input

  static Stream<Arguments> badSpecs() {
    return Stream.of(
        Arguments.of(spec("policy", "SOMETIMES"), "retry.policy", "SOMETIMES", "must be one of"),
        Arguments.of(spec("policy", 7), "retry.policy", 7, "must be one of"),
        Arguments.of(spec("maxRetries", 3), "retry.policy", null, "is required"),
        Arguments.of(spec("policy", "IMMEDIATE", "color", "red"), "retry.color", "red", "not used"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "delays", List.of("5m")),
            "retry.delays",
            List.of("5m"),
            "not used by policy IMMEDIATE"),
        Arguments.of(
            spec("policy", "NONE", "maxRetries", 3),
            "retry.maxRetries",
            3,
            "not used by policy NONE"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "maxRetries", 101),
            "retry.maxRetries",
            101,
            "between 0 and 100"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "maxRetries", -1),
            "retry.maxRetries",
            -1,
            "between 0 and 100"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "maxRetries", "99999999999"),
            "retry.maxRetries",
            "99999999999",
            "between 0 and 100"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "maxRetries", "three"),
            "retry.maxRetries",
            "three",
            "whole number"),
        Arguments.of(
            spec("policy", "IMMEDIATE", "maxRetries", 2.5),
            "retry.maxRetries",
            2.5,
            "whole number"),
        Arguments.of(spec("policy", "DELAYED"), "retry.delays", null, "at least one"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of()),
            "retry.delays",
            List.of(),
            "at least one"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", "5m"), "retry.delays", "5m", "at least one"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of("5m", "PT-5M")),
            "retry.delays[1]",
            "PT-5M",
            "more than 0"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of("5m", "0s")),
            "retry.delays[1]",
            "0s",
            "more than 0"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of("5m", "8d")),
            "retry.delays[1]",
            "8d",
            "at most 7d"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of("5m", "soon")),
            "retry.delays[1]",
            "soon",
            "not a duration"),
        Arguments.of(
            spec("policy", "DELAYED", "delays", List.of("5m", 300)),
            "retry.delays[1]",
            300,
            "needs a unit"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "multiplier", 1), "retry.multiplier", 1, "more than 1"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "multiplier", 11.0),
            "retry.multiplier",
            11.0,
            "at most 10"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "multiplier", "fast"),
            "retry.multiplier",
            "fast",
            "a number"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "jitter", 1.5), "retry.jitter", 1.5, "between 0 and 1"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "jitter", -0.1), "retry.jitter", -0.1, "between 0 and 1"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "initial", "10y"),
            "retry.initial",
            "10y",
            "not a duration"),
        Arguments.of(
            spec("policy", "EXPONENTIAL", "initial", "5m", "cap", "1m"),
            "retry.cap",
            "1m",
            "at least initial (5m)"),
        Arguments.of(spec("policy", "WINDOW", "delay", "0s"), "retry.delay", "0s", "more than 0"),
        Arguments.of(
            spec("policy", "WINDOW", "grace", "PT-1H"),
            "retry.grace",
            "PT-1H",
            "between 0 and 7d"));
  }

  @ParameterizedTest
  @MethodSource("badSpecs")
  void a_bad_spec_is_refused_with_a_problem_naming_the_field_and_the_value(
      Map<String, ?> spec, String field, Object value, String message) {
    assertThatThrownBy(() -> read(spec))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e -> {
              assertThat(e.taskId()).isEqualTo("daily-digest");
              assertThat(e.problems()).hasSize(1);
              Problem problem = e.problems().get(0);
              assertThat(problem.field()).isEqualTo(field);
              assertThat(problem.value()).isEqualTo(value);
              assertThat(problem.message()).contains(message);
            })
        .hasMessageContaining(field);
  }

  @Test
  void every_problem_in_a_spec_is_reported_at_once() {
    Map<String, Object> spec =
        spec(
            "policy",
            "EXPONENTIAL",
            "maxRetries",
            500,
            "multiplier",
            0.5,
            "jitter",
            2,
            "delays",
            List.of("5m"));

    assertThatThrownBy(() -> read(spec))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e ->
                assertThat(e.problems())
                    .extracting(Problem::field)
                    .containsExactlyInAnyOrder(
                        "retry.delays", "retry.maxRetries", "retry.multiplier", "retry.jitter"));
  }

  @Test
  void an_unknown_key_beside_an_unknown_policy_lists_the_known_keys() {
    Map<String, Object> spec = new HashMap<>(spec("policy", "HOURLY", "delayz", "5m"));

    assertThatThrownBy(() -> read(spec))
        .isInstanceOfSatisfying(
            InvalidTaskException.class,
            e ->
                assertThat(e.problems())
                    .extracting(Problem::field, Problem::message)
                    .contains(
                        org.assertj.core.groups.Tuple.tuple(
                            "retry.delayz",
                            "unknown key (known: cap, delay, delays, grace, initial, jitter,"
                                + " maxRetries, multiplier, policy)")));
  }
}
