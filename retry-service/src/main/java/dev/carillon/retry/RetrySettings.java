package dev.carillon.retry;

import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.kafka.Topics;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.spec.TuningJson;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The retry service's configuration, read once at start.
 *
 * <table>
 *   <caption>keys (environment: CARILLON_ + upper case, dots and dashes as underscores)</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>retry.scan-interval</td><td>1s</td><td>pause between scan passes of the leader</td></tr>
 *   <tr><td>retry.batch-size</td><td>500</td><td>most rows one scanner handles per pass</td></tr>
 *   <tr><td>retry.rate.per-second</td><td>100</td><td>global republish rate</td></tr>
 *   <tr><td>retry.rate.burst</td><td>100</td><td>global bucket capacity</td></tr>
 *   <tr><td>retry.rate.per-task-per-second</td><td>10</td><td>republish rate per task</td></tr>
 *   <tr><td>retry.rate.max-per-scan</td><td>500</td><td>most republished per pass</td></tr>
 *   <tr><td>retry.undispatched-after</td><td>30s</td><td>age of a never-published PENDING row before it counts as stranded</td></tr>
 *   <tr><td>retry.stranded-after</td><td>2m</td><td>age of a publication still unclaimed before it is published again</td></tr>
 *   <tr><td>retry.alert-webhook</td><td>none</td><td>the older name of {@code alert.webhook}, read
 *       when that is not set: where DEAD alerts (from the outbox) and backlog alerts go</td></tr>
 *   <tr><td>retry.alert-secret</td><td>none</td><td>HMAC-SHA256 key that signs each DEAD alert
 *       the outbox delivers (use CARILLON_RETRY_ALERT_SECRET_FILE)</td></tr>
 *   <tr><td>retry.retention</td><td>30d</td><td>finished instances older than this move to history</td></tr>
 *   <tr><td>retry.heartbeat-interval</td><td>1m</td><td>period of the heartbeat log line</td></tr>
 *   <tr><td>retry.config-wait</td><td>10s</td><td>how long start waits to read the config topic to its end</td></tr>
 *   <tr><td>retry.instances-topic</td><td>carillon.instances</td><td>where instances are published</td></tr>
 *   <tr><td>retry.config-topic</td><td>carillon.config</td><td>the compacted overrides topic</td></tr>
 *   <tr><td>config.signing-secret</td><td>none</td><td>file of HMAC secrets; when set, only
 *       config records signed with one are applied</td></tr>
 * </table>
 *
 * @param rate the base rate limits; {@code ratelimit/global} on the config topic overrides them
 */
public record RetrySettings(
    CommonSettings common,
    Duration scanInterval,
    int batchSize,
    RateLimitSettings rate,
    Duration undispatchedAfter,
    Duration strandedAfter,
    Optional<URI> alertWebhook,
    Optional<String> alertSecret,
    Duration retention,
    Duration heartbeatInterval,
    Duration configWait,
    String instancesTopic,
    String configTopic,
    Optional<ConfigSigner> configSigner) {

  /** The admin port unless {@code admin.port} says otherwise. */
  public static final int DEFAULT_ADMIN_PORT = 8083;

  public static final Duration DEFAULT_SCAN_INTERVAL = Duration.ofSeconds(1);
  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final Duration DEFAULT_UNDISPATCHED_AFTER = Duration.ofSeconds(30);
  public static final Duration DEFAULT_STRANDED_AFTER = Duration.ofMinutes(2);
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofMinutes(1);
  public static final Duration DEFAULT_CONFIG_WAIT = Duration.ofSeconds(10);

  /**
   * Every key {@link #from} reads besides {@link CommonSettings#KEYS}, in the order of the table
   * above. Deploy files and the operator guide are checked against it; a test holds it to what
   * {@link #from} reads.
   */
  public static final List<String> KEYS =
      List.of(
          "retry.scan-interval",
          "retry.batch-size",
          "retry.rate.per-second",
          "retry.rate.burst",
          "retry.rate.per-task-per-second",
          "retry.rate.max-per-scan",
          "retry.undispatched-after",
          "retry.stranded-after",
          "retry.alert-webhook",
          "retry.alert-secret",
          "retry.retention",
          "retry.heartbeat-interval",
          "retry.config-wait",
          "retry.instances-topic",
          "retry.config-topic",
          CommonSettings.SIGNING_SECRET);

  public RetrySettings {
    Objects.requireNonNull(common, "common");
    Objects.requireNonNull(rate, "rate");
    Objects.requireNonNull(alertWebhook, "alertWebhook");
    Objects.requireNonNull(configSigner, "configSigner");
    Objects.requireNonNull(alertSecret, "alertSecret");
  }

  /**
   * @throws ConfigException naming the key, its source and the value when one is wrong
   */
  public static RetrySettings from(Config c) {
    CommonSettings common = CommonSettings.from(c, DEFAULT_ADMIN_PORT);
    RateLimitSettings rate;
    try {
      rate =
          new RateLimitSettings(
              c.decimal(
                  "retry.rate.per-second",
                  RateLimitSettings.DEFAULTS.perSecond(),
                  0.001,
                  RateLimitSettings.MAX_RATE),
              c.integer(
                  "retry.rate.burst",
                  RateLimitSettings.DEFAULTS.burst(),
                  1,
                  RateLimitSettings.MAX_COUNT),
              c.decimal(
                  "retry.rate.per-task-per-second",
                  RateLimitSettings.DEFAULTS.perTaskPerSecond(),
                  0.001,
                  RateLimitSettings.MAX_RATE),
              c.integer(
                  "retry.rate.max-per-scan",
                  RateLimitSettings.DEFAULTS.maxPerScan(),
                  1,
                  RateLimitSettings.MAX_COUNT));
    } catch (InvalidValueException e) {
      throw new ConfigException("retry.rate: " + e.getMessage());
    }
    return new RetrySettings(
        common,
        c.duration(
            "retry.scan-interval",
            DEFAULT_SCAN_INTERVAL,
            Duration.ofMillis(50),
            Duration.ofHours(1)),
        c.integer("retry.batch-size", DEFAULT_BATCH_SIZE, 1, 10_000),
        rate,
        c.duration(
            "retry.undispatched-after",
            DEFAULT_UNDISPATCHED_AFTER,
            Duration.ZERO,
            Duration.ofHours(1)),
        c.duration(
            "retry.stranded-after",
            DEFAULT_STRANDED_AFTER,
            Duration.ofSeconds(1),
            Duration.ofDays(1)),
        webhook(c),
        secret(c),
        c.duration(
            "retry.retention", DEFAULT_RETENTION, Duration.ofSeconds(1), Duration.ofDays(3650)),
        c.duration(
            "retry.heartbeat-interval",
            DEFAULT_HEARTBEAT_INTERVAL,
            Duration.ofSeconds(1),
            Duration.ofHours(1)),
        c.duration("retry.config-wait", DEFAULT_CONFIG_WAIT, Duration.ZERO, Duration.ofMinutes(5)),
        c.string("retry.instances-topic", Topics.INSTANCES),
        c.string("retry.config-topic", Topics.CONFIG),
        CommonSettings.configSigner(c));
  }

  /** Shortest alert secret accepted: an HMAC key should not be guessable. */
  public static final int MIN_SECRET_LENGTH = 16;

  private static Optional<String> secret(Config c) {
    Optional<String> secret = c.optional("retry.alert-secret");
    if (secret.isPresent() && secret.get().length() < MIN_SECRET_LENGTH) {
      // The value is a secret: only its length is named.
      throw new ConfigException(
          "configuration retry.alert-secret must have at least "
              + MIN_SECRET_LENGTH
              + " characters, had "
              + secret.get().length());
    }
    return secret;
  }

  private static Optional<URI> webhook(Config c) {
    Optional<String> raw = c.optional("retry.alert-webhook");
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(raw.get());
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())
          || uri.getHost() == null) {
        throw new ConfigException(
            "configuration retry.alert-webhook must be an http(s) URL with a host, was "
                + maskUrl(raw.get()));
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      throw new ConfigException(
          "configuration retry.alert-webhook is not a URL: " + maskUrl(raw.get()));
    }
  }

  /**
   * A webhook URL safe to log: scheme, host and port only. Webhook paths and queries often carry
   * the secret (Slack, Teams), so they are never printed.
   */
  public static String maskUrl(String url) {
    try {
      URI u = new URI(url);
      if (u.getScheme() == null || u.getHost() == null) {
        return "****";
      }
      return u.getScheme()
          + "://"
          + u.getHost()
          + (u.getPort() < 0 ? "" : ":" + u.getPort())
          + "/****";
    } catch (URISyntaxException e) {
      return "****";
    }
  }

  /** One line for the startup log; secrets masked. */
  public String describe() {
    return common.describe()
        + " scanInterval="
        + scanInterval
        + " batchSize="
        + batchSize
        + " rate="
        + TuningJson.toJson(rate)
        + " undispatchedAfter="
        + undispatchedAfter
        + " strandedAfter="
        + strandedAfter
        + " alertWebhook="
        + alertWebhook.map(u -> maskUrl(u.toString())).orElse("<none>")
        + " alertSecret="
        + (alertSecret.isPresent() ? "****" : "<none>")
        + " retention="
        + retention
        + " heartbeatInterval="
        + heartbeatInterval
        + " configWait="
        + configWait
        + " instancesTopic="
        + instancesTopic
        + " configTopic="
        + configTopic
        + " configSigning="
        + configSigner.map(ConfigSigner::toString).orElse("off");
  }

  /** Never prints the webhook path. */
  @Override
  public String toString() {
    return "RetrySettings[" + describe() + "]";
  }
}
