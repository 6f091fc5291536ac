package dev.carillon.control;

import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.http.HttpServerSettings;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.store.DbSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The API server's settings, read by the trigger service (which serves the API on every replica).
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>api.port</td><td>8080</td><td>the API's port (0: any free port)</td></tr>
 *   <tr><td>api.bind-address</td><td>0.0.0.0</td><td>the interface it listens on</td></tr>
 *   <tr><td>api.tokens-file</td><td>required</td><td>the tokens file (a mounted secret)</td></tr>
 *   <tr><td>api.insecure-local</td><td>false</td><td>true: no tokens, every caller is an admin</td></tr>
 *   <tr><td>api.max-threads</td><td>32</td><td>threads handling requests</td></tr>
 *   <tr><td>api.max-connections</td><td>1024</td><td>open connections</td></tr>
 *   <tr><td>api.max-body-bytes</td><td>1 MiB</td><td>largest request body</td></tr>
 *   <tr><td>api.idle-timeout</td><td>30s</td><td>a silent connection is closed</td></tr>
 *   <tr><td>api.header-timeout</td><td>5s</td><td>deadline of a complete request head</td></tr>
 *   <tr><td>api.request-timeout</td><td>30s</td><td>a body's arrival, and each SQL statement</td></tr>
 *   <tr><td>api.rate.per-second</td><td>50</td><td>requests per second per token</td></tr>
 *   <tr><td>api.rate.burst</td><td>100</td><td>the burst per token</td></tr>
 *   <tr><td>api.db-pool-size</td><td>4</td><td>the API's own database connections</td></tr>
 *   <tr><td>api.bulk-per-second</td><td>50</td><td>instances a bulk re-run or backfill moves per second</td></tr>
 *   <tr><td>api.db-user</td><td>the trigger's db.user</td><td>the API pool's database user: the
 *       api role, whose grants the trigger's role does not have</td></tr>
 *   <tr><td>api.db-password</td><td>the trigger's db.password</td><td>its password (use the
 *       _FILE variable)</td></tr>
 *   <tr><td>api.kafka.properties.*</td><td>none</td><td>client properties of the API's config
 *       reads and writes over kafka.properties.* (the operator principal's JAAS)</td></tr>
 *   <tr><td>config.signing-secret</td><td>none</td><td>signs what the API writes to the config
 *       topic, and marks unsigned records rejected in what it shows</td></tr>
 * </table>
 *
 * <p>Why the API has credentials of its own: the trigger's loops read untrusted input (event
 * records, condition plugins) and its role must not be able to rewrite definitions or the
 * configuration; the API's rights are an operator's, granted per request by token. See
 * docs/security.md.
 *
 * @param tokensFile the tokens file; empty only when {@code insecureLocal}
 * @param dbUser the API pool's database user, or empty for the trigger's
 * @param dbPassword its password, or empty for the trigger's
 * @param kafkaProperties client properties laid over the trigger's for the config topic
 * @param configSigner signs config records written, or empty when signing is off
 */
public record ApiSettings(
    HttpServerSettings http,
    Optional<Path> tokensFile,
    boolean insecureLocal,
    Duration requestTimeout,
    double ratePerSecond,
    int rateBurst,
    int dbPoolSize,
    double bulkPerSecond,
    Optional<String> dbUser,
    Optional<String> dbPassword,
    Map<String, String> kafkaProperties,
    Optional<ConfigSigner> configSigner) {

  public static final int DEFAULT_PORT = 8080;
  public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** Every key {@link #from} reads, in the order of the table above. */
  public static final List<String> KEYS =
      List.of(
          "api.port",
          "api.bind-address",
          "api.tokens-file",
          "api.insecure-local",
          "api.max-threads",
          "api.max-connections",
          "api.max-body-bytes",
          "api.idle-timeout",
          "api.header-timeout",
          "api.request-timeout",
          "api.rate.per-second",
          "api.rate.burst",
          "api.db-pool-size",
          "api.bulk-per-second",
          "api.db-user",
          "api.db-password",
          "api.kafka.properties.*",
          CommonSettings.SIGNING_SECRET);

  public ApiSettings {
    Objects.requireNonNull(dbUser, "dbUser");
    Objects.requireNonNull(dbPassword, "dbPassword");
    kafkaProperties = Map.copyOf(kafkaProperties);
    Objects.requireNonNull(configSigner, "configSigner");
  }

  /**
   * @throws ConfigException naming the key, its source and the value when one is wrong, and naming
   *     {@code api.tokens-file} when it is missing outside an insecure local setup: the API does
   *     not start without tokens
   */
  public static ApiSettings from(Config c) {
    int maxThreads = c.integer("api.max-threads", 32, 4, 1024);
    HttpServerSettings http =
        new HttpServerSettings(
            c.string("api.bind-address", HttpServerSettings.ALL_INTERFACES),
            c.integer("api.port", DEFAULT_PORT, 0, 65535),
            maxThreads,
            maxThreads * 8,
            c.duration(
                "api.idle-timeout",
                HttpServerSettings.DEFAULT_IDLE_TIMEOUT,
                Duration.ofSeconds(1),
                Duration.ofHours(1)),
            c.duration(
                "api.header-timeout",
                HttpServerSettings.DEFAULT_HEADER_TIMEOUT,
                Duration.ofMillis(100),
                Duration.ofMinutes(5)),
            HttpServerSettings.DEFAULT_MAX_HEADER_BYTES,
            c.integer("api.max-body-bytes", DEFAULT_MAX_BODY_BYTES, 1024, 64 * 1024 * 1024),
            c.integer("api.max-connections", 1024, 1, 100_000));
    Optional<Path> tokens = c.optional("api.tokens-file").map(Path::of);
    boolean insecure = c.bool("api.insecure-local", false);
    if (tokens.isEmpty() && !insecure) {
      throw new ConfigException(
          "missing configuration api.tokens-file (or "
              + Config.envName("api.tokens-file")
              + "): the API does not start without a tokens file; set api.insecure-local=true only"
              + " for a local, single-user setup");
    }
    return new ApiSettings(
        http,
        tokens,
        insecure && tokens.isEmpty(),
        c.duration(
            "api.request-timeout",
            DEFAULT_REQUEST_TIMEOUT,
            Duration.ofSeconds(1),
            Duration.ofMinutes(10)),
        c.decimal("api.rate.per-second", 50, 0.01, 100_000),
        c.integer("api.rate.burst", 100, 1, 1_000_000),
        c.integer("api.db-pool-size", 4, 1, 100),
        c.decimal("api.bulk-per-second", 50, 0.1, 10_000),
        c.optional("api.db-user"),
        c.optional("api.db-password"),
        c.withPrefix("api.kafka.properties."),
        CommonSettings.configSigner(c));
  }

  /** The API pool's database settings: the trigger's, with the API's own login if configured. */
  public DbSettings db(DbSettings trigger) {
    DbSettings login =
        dbUser.isPresent() ? trigger.withLogin(dbUser.get(), dbPassword.orElse("")) : trigger;
    return login.withPoolSize(dbPoolSize);
  }

  /** The API's Kafka settings: the trigger's, with {@code api.kafka.properties.*} laid over. */
  public KafkaSettings kafka(KafkaSettings trigger) {
    Map<String, String> extra = new HashMap<>(trigger.extra());
    extra.putAll(kafkaProperties);
    return new KafkaSettings(trigger.bootstrap(), extra);
  }

  /** One line for the startup log. */
  public String describe() {
    return "api="
        + http.bindAddress()
        + ":"
        + http.port()
        + " tokens="
        + tokensFile.map(Path::toString).orElse("none (insecure local: every caller is an admin)")
        + " threads="
        + http.maxThreads()
        + " maxBodyBytes="
        + http.maxBodyBytes()
        + " headerTimeout="
        + http.headerTimeout()
        + " requestTimeout="
        + requestTimeout
        + " rate="
        + ratePerSecond
        + "/s burst "
        + rateBurst
        + " dbPool="
        + dbPoolSize
        + " bulk="
        + bulkPerSecond
        + "/s dbUser="
        + dbUser.orElse("<the trigger's>")
        + " kafka="
        + (kafkaProperties.isEmpty()
            ? "<the trigger's>"
            : "the trigger's with " + new java.util.TreeSet<>(kafkaProperties.keySet()))
        + " configSigning="
        + configSigner.map(ConfigSigner::toString).orElse("off");
  }

  /** Never shows the API's database password or its Kafka secrets. */
  @Override
  public String toString() {
    return "ApiSettings[" + describe() + "]";
  }
}
