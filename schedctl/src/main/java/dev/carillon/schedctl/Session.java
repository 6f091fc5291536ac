package dev.carillon.schedctl;

import dev.carillon.client.CarillonClient;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.Durations;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.store.DbSettings;
import dev.carillon.store.LoadedTask;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Optional;

/**
 * Everything one {@code schedctl} run shares: its streams, environment, clock and sleeper, the
 * global options, and the connections it opened. Connections open on first use, so a command
 * reaches only the dependencies it needs ({@code retry-plan} none, {@code next} PostgreSQL, {@code
 * config} Kafka), and all close when the run ends.
 */
final class Session implements AutoCloseable {
  static final Duration MIN_TIMEOUT = Duration.ofSeconds(1);
  static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);

  final PrintStream out;
  final PrintStream err;
  final Clock clock;
  final Sleeper sleeper;
  private final Map<String, String> env;
  private final Schedctl options;
  private Config config;
  private Db db;
  private CarillonClient api;

  Session(
      Schedctl options,
      PrintStream out,
      PrintStream err,
      Map<String, String> env,
      Clock clock,
      Sleeper sleeper) {
    this.options = options;
    this.out = out;
    this.err = err;
    this.env = Map.copyOf(env);
    this.clock = clock;
    this.sleeper = sleeper;
  }

  Output output() {
    return new Output(out, options.output);
  }

  /** The {@code --timeout} for each call to PostgreSQL or Kafka, checked against its range. */
  Duration timeout() {
    Duration t = options.timeout;
    if (t.compareTo(MIN_TIMEOUT) < 0 || t.compareTo(MAX_TIMEOUT) > 0) {
      throw CliException.badInput(
          "--timeout " + Durations.format(t) + " must be between 1s and 5m");
    }
    return t;
  }

  /** Who the event log says acted: {@code schedctl:<login>}. */
  String actor() {
    String user = env.getOrDefault("USER", env.getOrDefault("LOGNAME", "operator"));
    return "schedctl:" + (user.isBlank() ? "operator" : user);
  }

  private Config config() {
    if (config == null) {
      config = Config.load(Optional.ofNullable(options.configFile), env);
    }
    return config;
  }

  /** Whether an API server was named ({@code --server} or {@code CARILLON_API_URL}). */
  boolean remote() {
    return serverUrl().isPresent();
  }

  private Optional<String> serverUrl() {
    if (options.server != null && !options.server.isBlank()) {
      return Optional.of(options.server);
    }
    return Optional.ofNullable(env.get(CarillonClient.ENV_URL)).filter(u -> !u.isBlank());
  }

  /**
   * The API client ({@code --server} or {@code CARILLON_API_URL}, token from {@code
   * CARILLON_API_TOKEN}), each request bounded by {@code --timeout}.
   */
  CarillonClient api() {
    if (api == null) {
      String url =
          serverUrl()
              .orElseThrow(
                  () ->
                      CliException.badInput(
                          "no API server: pass --server URL or set "
                              + CarillonClient.ENV_URL
                              + " (the local stack prints it)"));
      try {
        api =
            CarillonClient.builder()
                .baseUrl(url)
                .token(env.get(CarillonClient.ENV_TOKEN))
                .connectTimeout(timeout())
                .requestTimeout(timeout())
                .build();
      } catch (IllegalArgumentException e) {
        throw CliException.badInput("--server: " + e.getMessage());
      }
    }
    return api;
  }

  /** The database connection, opened on first use. */
  Db db() {
    if (db == null) {
      DbSettings settings;
      try {
        Config c = config();
        settings =
            new DbSettings(
                c.require("db.url"),
                c.string("db.user", "carillon"),
                c.string("db.password", ""),
                1);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(e);
      }
      db = Db.open(settings, timeout());
    }
    return db;
  }

  /**
   * The zone of a stored, valid task, to show instants on its wall clock; empty for a task that is
   * gone or no longer valid.
   */
  Optional<ZoneId> taskZone(String taskId) {
    return db().tasks().load(taskId).flatMap(LoadedTask::definition).map(TaskDefinition::zone);
  }

  /** How to reach Kafka; nothing is connected yet. */
  KafkaSettings kafka() {
    return CommonSettings.kafka(config());
  }

  /** The config-topic signer when {@code config.signing-secret} is set. */
  Optional<ConfigSigner> configSigner() {
    return CommonSettings.configSigner(config());
  }

  /** The PostgreSQL URL (password masked) if a connection was opened, for failure messages. */
  String dbShownUrl() {
    return db == null ? "<not connected>" : db.shownUrl();
  }

  @Override
  public void close() {
    if (db != null) {
      db.close();
      db = null;
    }
    out.flush();
    err.flush();
  }
}
