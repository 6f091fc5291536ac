package dev.carillon.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.api.Stability;
import dev.carillon.client.model.WireJson;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;

/**
 * A task definition to apply, built in code: the JSON form of one entry of a YAML task file (see
 * docs/concepts.md). The server validates it with the same spec reader as {@code schedctl apply};
 * this builder only assembles it, so any rule the server has holds here too.
 *
 * <pre>{@code
 * TaskSpec.cron("daily-digest", "digest", "0 0 8 * * ?", ZoneId.of("Europe/Berlin"))
 *     .timeout(Duration.ofMinutes(10))
 *     .params(Map.of("user", "u-42"));
 * TaskSpec.once("follow-up-u-42", "digest", Instant.now().plusSeconds(600));
 * }</pre>
 *
 * <p>Not thread-safe; each call changes this builder and returns it.
 */
@Stability.Evolving
public final class TaskSpec {
  private static final ObjectMapper JSON = WireJson.client();

  private final ObjectNode spec = JSON.createObjectNode();

  private TaskSpec(String id, String handler) {
    spec.put("id", Objects.requireNonNull(id, "id"));
    spec.put("handler", Objects.requireNonNull(handler, "handler"));
  }

  /**
   * A recurring task fired by a cron expression with seconds ({@code 0 0 8 * * ?}), evaluated in
   * {@code zone}; its window kind is the server's default unless {@link #window} says otherwise.
   */
  public static TaskSpec cron(String id, String handler, String cron, ZoneId zone) {
    TaskSpec t = new TaskSpec(id, handler);
    ObjectNode schedule = t.spec.putObject("schedule");
    schedule.put("cron", Objects.requireNonNull(cron, "cron"));
    schedule.put("zone", Objects.requireNonNull(zone, "zone").getId());
    return t;
  }

  /**
   * A one-shot task: fires once, at {@code at} (to the second, rounded up), and never again: the
   * spec's {@code at} trigger, with the zone UTC and an {@code EVERY_FIRE} window (keyed by the
   * instant) unless {@link #zone} or {@link #window} say otherwise.
   *
   * <p>The trigger evaluates a one-shot from just before its instant however late it first sees it,
   * so one applied a moment before {@code at}, or after it, still fires (late, as a catch-up)
   * within the task's catch-up window, {@link #ONE_SHOT_CATCHUP} unless {@link #catchup} says
   * otherwise. The server refuses an {@code at} already older than that window (it would never
   * run). The task stays listed after it fired (next fire: none), with its instance and history,
   * until deleted. For "now", {@link CarillonClient#runNow} needs no new task.
   */
  public static TaskSpec once(String id, String handler, Instant at) {
    Objects.requireNonNull(at, "at");
    Instant second =
        at.getNano() == 0
            ? at
            : at.truncatedTo(java.time.temporal.ChronoUnit.SECONDS).plusSeconds(1);
    TaskSpec t = new TaskSpec(id, handler);
    t.spec.put("at", second.toString());
    return t.catchup(ONE_SHOT_CATCHUP);
  }

  /** How late a one-shot may still run after a trigger outage: one hour. */
  public static final Duration ONE_SHOT_CATCHUP = Duration.ofHours(1);

  /**
   * The zone a one-shot's window and times are shown in (its instant does not depend on it); a cron
   * task's zone is given to {@link #cron}.
   */
  public TaskSpec zone(ZoneId zone) {
    schedule().put("zone", Objects.requireNonNull(zone, "zone").getId());
    return this;
  }

  /** The window kind: {@code EVERY_FIRE}, {@code DAILY}, {@code HOURLY}, ... */
  public TaskSpec window(String kind) {
    schedule().put("window", kind);
    return this;
  }

  /** The longest one attempt may run. */
  public TaskSpec timeout(Duration timeout) {
    spec.put("timeout", timeout.toString());
    return this;
  }

  /** How far back missed fire times still run after an outage. */
  public TaskSpec catchup(Duration catchup) {
    spec.put("catchup", catchup.toString());
    return this;
  }

  /** {@code SKIP} or {@code ALLOW}: what a window does while an earlier one still runs. */
  public TaskSpec overlap(String overlap) {
    spec.put("overlap", overlap);
    return this;
  }

  /**
   * The retry policy, as in a task file, e.g. {@code Map.of("policy", "EXPONENTIAL", "initial",
   * "5s", "maxRetries", 3)}. Without it a task is not retried.
   */
  public TaskSpec retry(Map<String, ?> retry) {
    spec.set("retry", JSON.valueToTree(retry));
    return this;
  }

  /** The JSON object handed to the agent on every run. */
  public TaskSpec params(Map<String, ?> params) {
    spec.set("params", JSON.valueToTree(params));
    return this;
  }

  /**
   * Any other top-level field of a spec (for example one a newer server knows), written as JSON.
   */
  public TaskSpec with(String field, Object value) {
    spec.set(field, JSON.valueToTree(value));
    return this;
  }

  /** The task id. */
  public String id() {
    return spec.get("id").asText();
  }

  /** A copy of the spec as JSON. */
  public ObjectNode toJson() {
    return spec.deepCopy();
  }

  /** The spec's {@code schedule} mapping, made when missing. */
  private ObjectNode schedule() {
    ObjectNode s = (ObjectNode) spec.get("schedule");
    return s != null ? s : spec.putObject("schedule");
  }

  @Override
  public String toString() {
    return spec.toString();
  }
}
