package dev.carillon.alert;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.model.Durations;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * When the trigger and the retry service raise alerts, and where they send them.
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>alert.webhook</td><td>none</td><td>URL that receives a JSON POST per alert (the retry
 *       service also reads its older name {@code retry.alert-webhook})</td></tr>
 *   <tr><td>alert.late-fire-after</td><td>1m</td><td>a fire whose instance is created later than
 *       this after its fire time is late</td></tr>
 *   <tr><td>alert.late-fire-after-tasks</td><td>none</td><td>per-task bounds, {@code
 *       task=duration,...}, e.g. {@code daily-digest=10s,sync=5m}</td></tr>
 *   <tr><td>alert.backlog-after</td><td>5m</td><td>the oldest PENDING, undispatched or overdue
 *       RETRY_WAIT instance older than this is a growing backlog</td></tr>
 *   <tr><td>alert.repeat-after</td><td>15m</td><td>the same alert (kind and task) is sent at most
 *       once per this; DEAD is sent for every instance</td></tr>
 * </table>
 */
public record AlertSettings(
    Optional<URI> webhook,
    Duration lateFireAfter,
    Map<String, Duration> lateFireAfterTasks,
    Duration backlogAfter,
    Duration repeatAfter) {

  public static final Duration DEFAULT_LATE_FIRE_AFTER = Duration.ofMinutes(1);
  public static final Duration DEFAULT_BACKLOG_AFTER = Duration.ofMinutes(5);
  public static final Duration DEFAULT_REPEAT_AFTER = Duration.ofMinutes(15);

  /** Every key {@link #from} reads (besides a service's older webhook key). */
  public static final List<String> KEYS =
      List.of(
          "alert.webhook",
          "alert.late-fire-after",
          "alert.late-fire-after-tasks",
          "alert.backlog-after",
          "alert.repeat-after");

  public AlertSettings {
    Objects.requireNonNull(webhook, "webhook");
    Objects.requireNonNull(lateFireAfter, "lateFireAfter");
    lateFireAfterTasks = Map.copyOf(lateFireAfterTasks);
    Objects.requireNonNull(backlogAfter, "backlogAfter");
    Objects.requireNonNull(repeatAfter, "repeatAfter");
  }

  /** No webhook, default bounds. */
  public static AlertSettings defaults() {
    return new AlertSettings(
        Optional.empty(),
        DEFAULT_LATE_FIRE_AFTER,
        Map.of(),
        DEFAULT_BACKLOG_AFTER,
        DEFAULT_REPEAT_AFTER);
  }

  /**
   * Reads the keys of the class comment.
   *
   * @param olderWebhookKey a key read when {@code alert.webhook} is not set, or empty
   * @throws ConfigException naming the key and value when one is wrong (a webhook URL is shown
   *     masked)
   */
  public static AlertSettings from(Config c, Optional<String> olderWebhookKey) {
    Optional<String> raw = c.optional("alert.webhook");
    String key = "alert.webhook";
    if (raw.isEmpty() && olderWebhookKey.isPresent()) {
      raw = c.optional(olderWebhookKey.get());
      key = olderWebhookKey.get();
    }
    return new AlertSettings(
        webhook(key, raw),
        c.duration(
            "alert.late-fire-after",
            DEFAULT_LATE_FIRE_AFTER,
            Duration.ofMillis(1),
            Duration.ofDays(1)),
        perTask(c.optional("alert.late-fire-after-tasks")),
        c.duration(
            "alert.backlog-after",
            DEFAULT_BACKLOG_AFTER,
            Duration.ofSeconds(1),
            Duration.ofDays(7)),
        c.duration("alert.repeat-after", DEFAULT_REPEAT_AFTER, Duration.ZERO, Duration.ofDays(1)));
  }

  /** The late-fire bound of {@code taskId}: its own, or the global one. */
  public Duration lateFireAfter(String taskId) {
    return lateFireAfterTasks.getOrDefault(taskId, lateFireAfter);
  }

  static Optional<URI> webhook(String key, Optional<String> raw) {
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(raw.get());
      if (uri.getScheme() == null
          || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
          || uri.getHost() == null) {
        throw new ConfigException(
            "configuration "
                + key
                + " must be an http or https URL, was "
                + WebhookSink.maskUrl(raw.get()));
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "configuration " + key + " is not a URL: " + WebhookSink.maskUrl(raw.get()));
    }
  }

  static Map<String, Duration> perTask(Optional<String> raw) {
    Map<String, Duration> out = new LinkedHashMap<>();
    if (raw.isEmpty()) {
      return out;
    }
    for (String part : raw.get().split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      if (eq <= 0 || eq == p.length() - 1) {
        throw new ConfigException(
            "configuration alert.late-fire-after-tasks: '"
                + p
                + "' is not task=duration (e.g. daily-digest=30s)");
      }
      String task = p.substring(0, eq).trim();
      String value = p.substring(eq + 1).trim();
      try {
        Duration d =
            Durations.tryParse(value)
                .orElseThrow(() -> new IllegalArgumentException("not a duration"));
        if (d.isNegative() || d.isZero()) {
          throw new IllegalArgumentException("must be positive");
        }
        out.put(task, d);
      } catch (RuntimeException e) {
        throw new ConfigException(
            "configuration alert.late-fire-after-tasks: the bound of task "
                + task
                + " = '"
                + value
                + "' is not a positive duration such as 30s or 5m");
      }
    }
    return out;
  }

  /** One line for the startup log; the webhook masked. */
  public String describe() {
    return "webhook="
        + webhook.map(u -> WebhookSink.maskUrl(u.toString())).orElse("<none>")
        + " lateFireAfter="
        + lateFireAfter
        + (lateFireAfterTasks.isEmpty() ? "" : " lateFireAfterTasks=" + lateFireAfterTasks)
        + " backlogAfter="
        + backlogAfter
        + " repeatAfter="
        + repeatAfter;
  }
}
