package dev.carillon.spec;

import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import java.util.Map;

/**
 * A retry policy as JSON: the store's {@code retry_policy} column, the config topic's {@code
 * retry/...} values and the CLI's output, e.g. {@code {"policy":"IMMEDIATE","maxRetries":3}}. The
 * keys and rules are those of a task spec's {@code retry} mapping. Thread-safe.
 */
public final class RetryPolicyJson {
  private RetryPolicyJson() {}

  /**
   * The policy as a mapping that reads back to an equal policy: keys in a fixed order, every value
   * written out (defaults included), durations in the short form.
   */
  public static Map<String, Object> toSpec(RetryPolicy policy) {
    return RetrySpec.toSpec(policy);
  }

  /** The policy as a JSON object, e.g. {@code {"policy":"IMMEDIATE","maxRetries":3}}. */
  public static String toJson(RetryPolicy policy) {
    return Json.write(toSpec(policy));
  }

  /**
   * Reads a policy written by {@link #toJson} (or by hand in the same shape). Problems are named
   * under the field {@code retry}.
   *
   * @param taskId the task the policy belongs to, for the exception
   * @throws InvalidTaskException when the text is not one JSON object or the policy is invalid,
   *     listing every problem
   */
  public static RetryPolicy fromJson(String taskId, String json) {
    if (json == null || json.isBlank()) {
      throw new InvalidTaskException(
          taskId, new Problem("retry", json, "is required (a JSON object)"));
    }
    NodeParser.Parsed parsed = NodeParser.parse(json, Format.JSON);
    if (parsed.error().isPresent()) {
      throw new InvalidTaskException(
          taskId,
          new Problem("retry", json, "not a JSON object: " + parsed.error().get().message()));
    }
    if (!(parsed.root().orElse(null) instanceof Node.Mapping spec)) {
      throw new InvalidTaskException(taskId, new Problem("retry", json, "not a JSON object"));
    }
    Problems problems = new Problems();
    return RetrySpec.read("retry", spec, problems)
        .orElseThrow(() -> new InvalidTaskException(taskId, problems.problems()));
  }
}
