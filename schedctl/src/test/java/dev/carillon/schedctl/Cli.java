package dev.carillon.schedctl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.devstack.DevStack;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs schedctl in-process against the shared devstack and captures what it prints. */
final class Cli {
  private static final ObjectMapper JSON = new ObjectMapper();

  private Cli() {}

  /** What one run printed and returned. */
  record Result(int code, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (Exception e) {
        throw new AssertionError("stdout is not JSON: " + e.getMessage() + "\n" + out, e);
      }
    }

    List<String> errLines() {
      return Arrays.stream(err.split("\\R")).filter(l -> !l.isBlank()).toList();
    }

    @Override
    public String toString() {
      return "exit " + code + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  static Result run(Map<String, String> env, String... args) {
    return run(new Schedctl(), env, args);
  }

  static Result run(Schedctl cli, Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = cli.run(args, o, e, env);
    }
    return new Result(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Schedctl at(Clock clock) {
    return new Schedctl(clock, Sleeper.system());
  }

  /** A fresh, migrated database on the shared devstack, and the environment pointing at it. */
  record Env(Database db, Map<String, String> vars) implements AutoCloseable {
    static Env fresh(String prefix) {
      DevStack stack = DevStack.shared();
      String url = stack.createDatabase(prefix);
      Database db =
          Database.open(
              new DbSettings(url, stack.dbUser(), stack.dbPassword(), 4),
              DevStack.SESSION_TIME_ZONE_SQL);
      Map<String, String> vars = new HashMap<>();
      vars.put("CARILLON_DB_URL", url);
      vars.put("CARILLON_DB_USER", stack.dbUser());
      vars.put("CARILLON_DB_PASSWORD", stack.dbPassword());
      vars.put("CARILLON_KAFKA_BOOTSTRAP", stack.kafkaBootstrap());
      vars.put("USER", "ops-tester");
      return new Env(db, Map.copyOf(vars));
    }

    /** The same environment with {@code key} replaced. */
    Map<String, String> with(String key, String value) {
      Map<String, String> m = new HashMap<>(vars);
      m.put(key, value);
      return m;
    }

    @Override
    public void close() {
      db.close();
    }
  }

  /** Creates the Carillon topics on the shared Kafka (idempotent). */
  static void ensureTopics() {
    TopicAdmin.ensureTopics(KafkaSettings.of(DevStack.shared().kafkaBootstrap()), 1, (short) 1);
  }
}
