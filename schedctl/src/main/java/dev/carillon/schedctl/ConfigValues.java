package dev.carillon.schedctl;

import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.spec.TuningJson;
import java.util.List;

/**
 * Checks keys and values of the {@code carillon.config} topic with the retry service's own
 * validator ({@link TuningKey}, {@link TuningJson}), so an operator's typo is refused at the prompt
 * for exactly the reasons the service would refuse it, and turns the problems into the CLI's lines:
 * {@code <key>: <field>='<value>': <rule>}. It holds no rule of its own. Stateless.
 */
final class ConfigValues {
  private ConfigValues() {}

  /**
   * A checked value.
   *
   * @param key the key as given
   * @param canonicalJson the value to send ({@link TuningJson#toJson}), or null when there are
   *     problems
   * @param problems one line per problem, each naming the key, the field and the value
   */
  record Checked(String key, String canonicalJson, List<String> problems) {
    Checked {
      problems = List.copyOf(problems);
    }

    boolean valid() {
      return problems.isEmpty();
    }
  }

  /** Problems with the key alone (empty when it is one of the known keys). */
  static List<String> checkKey(String key) {
    try {
      TuningKey.parse(key);
      return List.of();
    } catch (InvalidValueException e) {
      return List.of(e.problem().toString());
    }
  }

  /** Checks {@code json} as the value of {@code key}. Never throws for bad input. */
  static Checked check(String key, String json) {
    TuningKey k;
    try {
      k = TuningKey.parse(key);
    } catch (InvalidValueException e) {
      return new Checked(key, null, List.of(e.problem().toString()));
    }
    if (json == null || json.isBlank()) {
      // The shared parser treats null as a tombstone; on the command line it is a missing VALUE.
      return new Checked(key, null, List.of(key + ": a JSON value is required (unset removes)"));
    }
    try {
      return new Checked(key, TuningJson.toJson(TuningJson.parse(k, json)), List.of());
    } catch (InvalidTuningException e) {
      return new Checked(key, null, e.problems().stream().map(p -> line(key, p)).toList());
    }
  }

  private static String line(String key, Problem p) {
    return key + ": " + p;
  }
}
