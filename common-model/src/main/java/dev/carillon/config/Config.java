package dev.carillon.config;

import dev.carillon.model.Durations;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListSet;

/**
 * Service configuration: a properties file plus environment overrides. Key {@code db.pool-size} is
 * overridden by the variable {@code CARILLON_DB_POOL_SIZE} (upper case, dots and dashes become
 * underscores). A secret may instead come from a mounted file named by {@code <VAR>_FILE}, e.g.
 * {@code CARILLON_DB_PASSWORD_FILE=/run/secrets/db}. Values are validated when read, with errors
 * that name the key, where the value came from and the value (secrets are never printed).
 */
public final class Config {
  private final Map<String, String> fileValues;
  private final Map<String, String> env;
  private final String fileName;
  // Every key asked for, so tests can hold each settings class's KEYS list to what its code reads.
  private final Set<String> keysRead = new ConcurrentSkipListSet<>();

  private Config(Map<String, String> fileValues, Map<String, String> env, String fileName) {
    this.fileValues = fileValues;
    this.env = env;
    this.fileName = fileName;
  }

  /** Reads {@code file} when given, then overlays {@code env}. */
  public static Config load(Optional<Path> file, Map<String, String> env) {
    Map<String, String> values = new TreeMap<>();
    String name = "<none>";
    if (file.isPresent()) {
      Path p = file.get();
      name = p.toString();
      Properties props = new Properties();
      try (Reader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
        props.load(r);
      } catch (IOException e) {
        throw new ConfigException("cannot read configuration file " + p + ": " + e.getMessage());
      }
      props.forEach((k, v) -> values.put(k.toString().trim(), v.toString().trim()));
    }
    return new Config(values, Map.copyOf(env), name);
  }

  /** Configuration from explicit values only (tests, the local stack). */
  public static Config of(Map<String, String> values) {
    return new Config(new TreeMap<>(values), Map.of(), "<code>");
  }

  /** The environment variable that overrides {@code key}. */
  public static String envName(String key) {
    return "CARILLON_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  private record Value(String text, String source) {}

  /**
   * The keys looked up so far, sorted; a prefix read by {@link #withPrefix} appears as {@code
   * prefix*}, e.g. {@code kafka.properties.*}. For tests and diagnostics.
   */
  public Set<String> keysRead() {
    return new TreeSet<>(keysRead);
  }

  private Optional<Value> lookup(String key) {
    keysRead.add(key);
    String var = envName(key);
    String fromEnv = env.get(var);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return Optional.of(new Value(fromEnv.trim(), "environment " + var));
    }
    String fileVar = env.get(var + "_FILE");
    if (fileVar != null && !fileVar.isBlank()) {
      try {
        return Optional.of(
            new Value(
                Files.readString(Path.of(fileVar.trim()), StandardCharsets.UTF_8).trim(),
                "file " + fileVar.trim() + " (" + var + "_FILE)"));
      } catch (IOException e) {
        throw new ConfigException(
            var + "_FILE names " + fileVar + ", which cannot be read: " + e.getMessage());
      }
    }
    String fromFile = fileValues.get(key);
    if (fromFile != null && !fromFile.isBlank()) {
      return Optional.of(new Value(fromFile, "file " + fileName));
    }
    return Optional.empty();
  }

  public Optional<String> optional(String key) {
    return lookup(key).map(Value::text);
  }

  public String string(String key, String defaultValue) {
    return optional(key).orElse(defaultValue);
  }

  /**
   * @throws ConfigException naming the key and its environment variable when it is missing
   */
  public String require(String key) {
    return optional(key)
        .orElseThrow(
            () ->
                new ConfigException(
                    "missing configuration "
                        + key
                        + ": set it in the configuration file or in "
                        + envName(key)));
  }

  public int integer(String key, int defaultValue, int min, int max) {
    Optional<Value> v = lookup(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    int n;
    try {
      n = Integer.parseInt(v.get().text());
    } catch (NumberFormatException e) {
      throw bad(key, v.get(), "is not a whole number");
    }
    if (n < min || n > max) {
      throw bad(key, v.get(), "must be between " + min + " and " + max);
    }
    return n;
  }

  public double decimal(String key, double defaultValue, double min, double max) {
    Optional<Value> v = lookup(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    double n;
    try {
      n = Double.parseDouble(v.get().text());
    } catch (NumberFormatException e) {
      throw bad(key, v.get(), "is not a number");
    }
    if (!(n >= min && n <= max)) {
      throw bad(key, v.get(), "must be between " + min + " and " + max);
    }
    return n;
  }

  public boolean bool(String key, boolean defaultValue) {
    Optional<Value> v = lookup(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    return switch (v.get().text().toLowerCase(Locale.ROOT)) {
      case "true", "yes", "1" -> true;
      case "false", "no", "0" -> false;
      default -> throw bad(key, v.get(), "must be true or false");
    };
  }

  public Duration duration(String key, Duration defaultValue, Duration min, Duration max) {
    Optional<Value> v = lookup(key);
    if (v.isEmpty()) {
      return defaultValue;
    }
    Duration d =
        Durations.tryParse(v.get().text())
            .orElseThrow(() -> bad(key, v.get(), "is not a duration (e.g. PT5M, 30s, 5m, 1h)"));
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
      throw bad(
          key,
          v.get(),
          "must be between " + Durations.format(min) + " and " + Durations.format(max));
    }
    return d;
  }

  /**
   * Every key under {@code prefix} (file and environment), without the prefix, e.g. the Kafka
   * client pass-through settings under {@code kafka.properties.}. Environment variables reach this
   * map as {@code CARILLON_KAFKA_PROPERTIES_SECURITY_PROTOCOL → security.protocol}; a variable
   * ending in {@code _FILE} names a file that holds the value, so a secret such as {@code
   * CARILLON_KAFKA_PROPERTIES_SASL_JAAS_CONFIG_FILE=/run/secrets/kafka/jaas} never sits in the
   * environment.
   *
   * @throws ConfigException naming the variable when its file cannot be read
   */
  public Map<String, String> withPrefix(String prefix) {
    keysRead.add(prefix + "*");
    Map<String, String> out = new TreeMap<>();
    fileValues.forEach(
        (k, v) -> {
          if (k.startsWith(prefix)) {
            out.put(k.substring(prefix.length()), v);
          }
        });
    String envPrefix =
        envName(prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix) + "_";
    env.forEach(
        (k, v) -> {
          if (k.startsWith(envPrefix) && !v.isBlank() && !k.endsWith("_FILE")) {
            out.put(k.substring(envPrefix.length()).toLowerCase(Locale.ROOT).replace('_', '.'), v);
          }
        });
    env.forEach(
        (k, v) -> {
          if (k.startsWith(envPrefix) && !v.isBlank() && k.endsWith("_FILE")) {
            String name = k.substring(envPrefix.length(), k.length() - "_FILE".length());
            try {
              out.put(
                  name.toLowerCase(Locale.ROOT).replace('_', '.'),
                  Files.readString(Path.of(v.trim()), StandardCharsets.UTF_8).trim());
            } catch (IOException e) {
              throw new ConfigException(
                  k + " names " + v + ", which cannot be read: " + e.getMessage());
            }
          }
        });
    return out;
  }

  private static ConfigException bad(String key, Value v, String rule) {
    boolean secret = isSecret(key);
    return new ConfigException(
        "configuration "
            + key
            + " from "
            + v.source()
            + (secret ? "" : " = '" + v.text() + "'")
            + " "
            + rule);
  }

  /**
   * Whether a key holds a secret whose value must never be printed. A key ending in {@code -file}
   * (e.g. {@code api.tokens-file}) names where a secret is mounted, which is not itself secret.
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (k.endsWith("-file")) {
      return false;
    }
    return k.contains("password")
        || k.contains("secret")
        || k.contains("jaas")
        || k.contains("token");
  }
}
