package dev.carillon.local;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.retry.RetryService;
import dev.carillon.schedctl.TaskFile;
import dev.carillon.spec.InvalidSpecException;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.EventQueries;
import dev.carillon.store.TaskStore;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole system in one JVM: devstack's real PostgreSQL, Kafka and ZooKeeper, then the trigger, a
 * worker with the example agents, and the retry service, each started exactly as in production
 * (from a {@link Config}), with the example tasks applied and a live line per transition.
 */
public final class LocalStack implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LocalStack.class);

  /** Partitions of the local instances topic: room for a few workers. */
  static final int INSTANCE_PARTITIONS = 4;

  private final DevStack devstack;
  private final CliEnvironment cliEnvironment;
  private final LocalApiToken apiToken;
  private final int apiPort;
  private final Database db;
  private final List<AutoCloseable> services;
  private final TransitionFeed feed;

  private LocalStack(
      DevStack devstack,
      CliEnvironment cliEnvironment,
      LocalApiToken apiToken,
      int apiPort,
      Database db,
      List<AutoCloseable> services,
      TransitionFeed feed) {
    this.devstack = devstack;
    this.cliEnvironment = cliEnvironment;
    this.apiToken = apiToken;
    this.apiPort = apiPort;
    this.db = db;
    this.services = services;
    this.feed = feed;
  }

  /**
   * Starts everything; on any failure stops what was started and rethrows.
   *
   * @throws IllegalArgumentException when the task file is invalid (one line per problem)
   */
  public static LocalStack start(LocalStackOptions options, PrintStream out) {
    // Validate the task file before starting anything: a typo must not cost a server start.
    List<TaskDefinition> tasks;
    try {
      tasks = TaskFile.read(options.tasksFile());
    } catch (InvalidSpecException e) {
      StringBuilder sb = new StringBuilder("invalid task file " + options.tasksFile() + ":");
      e.problems().forEach(p -> sb.append("\n  ").append(p.text()));
      throw new IllegalArgumentException(sb.toString(), e);
    }

    DevStack devstack =
        DevStack.start(
            DevStackOptions.defaults()
                .withDataDir(options.dataDir().toAbsolutePath())
                .withFresh(options.fresh()));
    // Our own shutdown stops the services first and the servers last; the stack's JVM hook would
    // run concurrently and pull the database from under services that are still draining.
    devstack.removeShutdownHook();
    List<AutoCloseable> started = new ArrayList<>();
    Database db = null;
    try {
      Map<String, String> common = new HashMap<>();
      common.put("db.url", devstack.jdbcUrl());
      common.put("db.user", devstack.dbUser());
      common.put("db.password", devstack.dbPassword());
      common.put("kafka.bootstrap", devstack.kafkaBootstrap());
      common.put("zk.connect", devstack.zkConnect());
      common.put("kafka.instances-partitions", Integer.toString(INSTANCE_PARTITIONS));

      db =
          Database.open(
              new DbSettings(devstack.jdbcUrl(), devstack.dbUser(), devstack.dbPassword(), 2));
      // The deploy step, done here in one go: the topics of every queue the task file names.
      // Services create no topics; a queue added later needs its topic made the same way.
      Set<String> queues = new TreeSet<>();
      queues.add(TaskDefinition.DEFAULT_QUEUE);
      tasks.forEach(t -> queues.add(t.queue()));
      TopicAdmin.ensureTopics(
          KafkaSettings.of(devstack.kafkaBootstrap()), INSTANCE_PARTITIONS, (short) 1, queues);
      List<String> changed = new TaskStore(db.dsl()).applyAll(tasks);
      out.printf(
          "applied %d task(s) from %s (%d new or changed)%n",
          tasks.size(), options.tasksFile(), changed.size());

      Clock clock = Clock.systemUTC();
      LocalApiToken token = LocalApiToken.ensure(options.dataDir());
      Map<String, String> trigger = new HashMap<>(common);
      trigger.put("api.port", Integer.toString(options.apiPort()));
      trigger.put("api.bind-address", "127.0.0.1");
      trigger.put("api.tokens-file", token.tokensFile().toString());
      TriggerService triggerService =
          TriggerService.start(config(trigger, "trigger", options.adminPortBase(), 0), clock);
      started.add(triggerService);
      Map<String, String> worker = new HashMap<>(common);
      options.pluginDir().ifPresent(d -> worker.put("worker.plugin-dir", d.toString()));
      // One worker runs everything locally: it serves every queue the task file names.
      worker.put("worker.queues", String.join(",", queues));
      started.add(WorkerService.start(config(worker, "worker", options.adminPortBase(), 1)));
      started.add(RetryService.start(config(common, "retry", options.adminPortBase(), 2), clock));

      TransitionFeed feed = new TransitionFeed(new EventQueries(db.dsl()), out);
      feed.start();
      devstack.portChanges().forEach(change -> out.println("note: " + change + "."));
      out.println(
          "Carillon is running: PostgreSQL "
              + devstack.jdbcUrl()
              + ", Kafka "
              + devstack.kafkaBootstrap()
              + ", ZooKeeper "
              + devstack.zkConnect()
              + ", data in "
              + options.dataDir()
              + ". Ctrl-C stops everything.");
      CliEnvironment env = CliEnvironment.of(devstack);
      printCliEnvironment(env, devstack.dataDir(), out);
      printApi(triggerService.apiPort(), token, options.dataDir(), out);
      out.println(
          "time      task           window                     change                 detail");
      return new LocalStack(devstack, env, token, triggerService.apiPort(), db, started, feed);
    } catch (RuntimeException e) {
      closeAll(started);
      if (db != null) {
        db.close();
      }
      devstack.close();
      throw e;
    }
  }

  /**
   * Tells the user how to point {@code schedctl} at this stack: the variables, and a file in the
   * data directory holding them. The ports stay the same for the data directory, so the file stays
   * valid across restarts.
   */
  private static void printCliEnvironment(CliEnvironment env, Path dataDir, PrintStream out) {
    String how;
    try {
      Path file = env.writeTo(dataDir);
      how = "source " + file + "  (or paste the lines below)";
    } catch (IOException e) {
      log.warn("cannot write {} in {}: {}", CliEnvironment.FILE, dataDir, e.toString());
      how = "paste the lines below (" + CliEnvironment.FILE + " could not be written: " + e + ")";
    }
    out.println("To run ./schedctl.sh against it from another terminal: " + how);
    env.exportLines().forEach(line -> out.println("  " + line));
  }

  /**
   * Says where the web console and the API are and how to call the API, with the environment a
   * client needs.
   */
  private static void printApi(
      int port, LocalApiToken token, java.nio.file.Path dataDir, PrintStream out) {
    String url = "http://127.0.0.1:" + port;
    out.println(
        "Console: " + url + "/console/ (log in with the token below; it stays in the browser tab)");
    out.println(
        "API: "
            + url
            + "/api/v1 (token kept in "
            + dataDir.resolve(LocalApiToken.TOKEN_FILE)
            + ", the same after a restart). For schedctl and curl:");
    out.println("  export CARILLON_API_URL=" + url);
    out.println("  export CARILLON_API_TOKEN=" + token.token());
    out.println(
        "  curl -H \"Authorization: Bearer $CARILLON_API_TOKEN\" $CARILLON_API_URL/api/v1/tasks");
  }

  /** The API's base URL, e.g. {@code http://127.0.0.1:8080}. */
  public String apiUrl() {
    return "http://127.0.0.1:" + apiPort;
  }

  /** The local admin's API token. */
  public String apiToken() {
    return apiToken.token();
  }

  private static Config config(Map<String, String> common, String service, int base, int offset) {
    Map<String, String> values = new HashMap<>(common);
    values.put("admin.port", base == 0 ? "0" : Integer.toString(base + offset));
    values.put("instance.id", "local-" + service);
    // Ctrl-C should be quick locally: runs still going after 5 s are released back to PENDING
    // (recorded, no retry consumed) and run again on the next start.
    values.put("worker.drain-timeout", "5s");
    return Config.of(values);
  }

  private static void closeAll(List<AutoCloseable> services) {
    // Stop in reverse order: the retry service and the worker before the trigger that feeds them.
    for (int i = services.size() - 1; i >= 0; i--) {
      try {
        services.get(i).close();
      } catch (Exception e) {
        log.warn(
            "stopping {} failed: {}", services.get(i).getClass().getSimpleName(), e.toString());
      }
    }
  }

  /** The environment a CLI needs to reach this stack, as printed at start. */
  CliEnvironment cliEnvironment() {
    return cliEnvironment;
  }

  /** Connection to the stack's database (for tests and tools). */
  public Database database() {
    return db;
  }

  @Override
  public void close() {
    feed.close();
    closeAll(services);
    db.close();
    devstack.close();
  }
}
