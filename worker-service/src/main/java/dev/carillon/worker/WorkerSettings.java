package dev.carillon.worker;

import dev.carillon.api.AgentResult;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import dev.carillon.http.HttpServerSettings;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.Topics;
import dev.carillon.model.Durations;
import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.DbSettings;
import dev.carillon.worker.http.HttpAgents;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Everything a worker reads from its configuration, validated at start.
 *
 * <table>
 *   <caption>worker keys (besides db.*, kafka.*, admin.port and instance.id of {@link
 *   dev.carillon.config.CommonSettings})</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>worker.concurrency</td><td>4</td><td>runs at once on this worker</td></tr>
 *   <tr><td>worker.prefetch</td><td>0</td><td>claimed instances that may wait for a free run
 *       slot; raise it for many short runs</td></tr>
 *   <tr><td>worker.group</td><td>carillon-workers</td><td>Kafka consumer group</td></tr>
 *   <tr><td>worker.topic</td><td>carillon.instances</td><td>topic to consume and republish to</td></tr>
 *   <tr><td>worker.max-summary-bytes</td><td>4096</td><td>UTF-8 bytes of a result summary kept</td></tr>
 *   <tr><td>worker.heartbeat-interval</td><td>a third of the shortest running timeout, at most
 *       10s</td><td>how often leases are renewed</td></tr>
 *   <tr><td>worker.drain-timeout</td><td>30s</td><td>how long shutdown waits for runs to end
 *       before releasing them</td></tr>
 *   <tr><td>worker.plugin-dir</td><td>none</td><td>directory of plugin jars</td></tr>
 *   <tr><td>worker.task-cache-ttl</td><td>5s</td><td>how long a task definition is reused</td></tr>
 *   <tr><td>worker.builtin-handlers</td><td>exec,http</td><td>the built-in handlers this worker
 *       offers (comma-separated; empty for none): {@code exec} runs commands, {@code http} calls
 *       endpoints</td></tr>
 *   <tr><td>worker.http.connect-timeout</td><td>5s</td><td>how long an http agent's connection
 *       may take</td></tr>
 *   <tr><td>worker.queues</td><td>default</td><td>the queues this worker serves, comma
 *       separated</td></tr>
 *   <tr><td>worker.max-abandoned-runs</td><td>3</td><td>runs that would not stop, at once, before
 *       the worker gives up and exits</td></tr>
 *   <tr><td>worker.stop-grace</td><td>5s</td><td>how long a stopped run may take to end before it
 *       counts as abandoned</td></tr>
 *   <tr><td>worker.fence-margin</td><td>10s</td><td>how long before its lease could expire a run
 *       that cannot renew it is stopped</td></tr>
 *   <tr><td>worker.group-protocol</td><td>classic</td><td>Kafka's group protocol: classic or
 *       consumer</td></tr>
 *   <tr><td>worker.static-membership</td><td>true</td><td>join as the static member named by the
 *       worker id ({@code group.instance.id})</td></tr>
 *   <tr><td>worker.plugin-allowlist</td><td>none</td><td>file of sha256 sums; a plugin jar not
 *       on it stops the worker</td></tr>
 *   <tr><td>worker.republish-released</td><td>true</td><td>publish the ids of instances released
 *       at shutdown at once (needs WRITE on the instances topic), or leave them to the retry
 *       service's stranded scan</td></tr>
 *   <tr><td>worker.virtual-threads</td><td>false</td><td>run slots on virtual threads where the
 *       JDK has them (Java 21+); platform threads, with a warning, where it does not</td></tr>
 *   <tr><td>worker.claim-ahead</td><td>0s</td><td>claim instances due within this of the
 *       database's clock and start their runs on the instant (with {@code
 *       trigger.create-ahead})</td></tr>
 * </table>
 *
 * @param db how to reach PostgreSQL
 * @param kafka how to reach Kafka
 * @param instancePartitions the fewest partitions the topic must have at start
 * @param admin the health and metrics endpoints' server (port 0 picks a free one)
 * @param workerId this worker's name in claims, events and logs
 * @param concurrency the most runs at once, 1..1024
 * @param prefetch how many instances beyond {@code concurrency} one claim may take, to wait on this
 *     worker for a free slot, 0..100000; 0 claims only for free slots (right for long agent runs:
 *     nothing waits here that another worker could start), a few hundred lets a worker with many
 *     short runs claim a whole poll batch in one statement
 * @param group the consumer group shared by all workers
 * @param topic the instances topic
 * @param maxSummaryBytes the most UTF-8 bytes of a summary kept with the instance
 * @param heartbeatInterval a fixed lease renewal interval, or empty for the adaptive default
 * @param drainTimeout how long a graceful shutdown lets running instances finish
 * @param pluginDir a directory of plugin jars, or empty for the class path only
 * @param taskCacheTtl how long a loaded task definition is reused before it is read again
 * @param builtinHandlers the built-in handlers this worker offers
 * @param httpConnectTimeout how long an http agent's connection may take
 * @param queues the queues this worker serves (consumes, and claims instances of), sorted, at least
 *     one
 * @param maxAbandonedRuns how many runs that were stopped and would not end may exist at once
 *     before the worker reports not ready, leaves the group and exits (code {@link
 *     WorkerService#EXIT_GAVE_UP})
 * @param stopGrace how long a stopped run may take to end before it counts as abandoned; shorter
 *     than {@code fenceMargin} (see {@link dev.carillon.worker.lease.LeaseFence})
 * @param fenceMargin how long before its lease can expire (by the database's clock) a run whose
 *     lease this worker cannot renew is stopped
 * @param groupProtocol Kafka's consumer group protocol
 * @param staticMembership whether the consumer is the static member named by the worker id ({@code
 *     group.instance.id}): a worker restarted under its id gets its partitions back at once, not
 *     after the dead process's session timeout; turn it off only where ids are not stable anyway
 * @param pluginAllowlist a file of {@code sha256sum} lines naming the plugin jars this worker may
 *     load, or empty to load every jar in the plugin directory
 * @param republishReleased whether instances released at shutdown are published again at once; with
 *     Kafka ACLs that keep workers from writing the instances topic, false, and the retry service's
 *     stranded scan publishes them after {@code retry.undispatched-after}
 * @param virtualThreads run slots on virtual threads where the JDK has them (see {@link
 *     dev.carillon.worker.run.RunThreads})
 * @param claimAhead how long before its {@code scheduled_at} (by the database's clock) an instance
 *     may be claimed, 0..{@link #MAX_CLAIM_AHEAD}; a run claimed ahead is held on this worker and
 *     started when the database's clock reaches its {@code scheduled_at}, as this worker measures
 *     it ({@link dev.carillon.worker.run.FireTimeStarts}). Zero (the default) claims only due
 *     instances
 */
public record WorkerSettings(
    DbSettings db,
    KafkaSettings kafka,
    int instancePartitions,
    HttpServerSettings admin,
    String workerId,
    int concurrency,
    int prefetch,
    String group,
    String topic,
    int maxSummaryBytes,
    Optional<Duration> heartbeatInterval,
    Duration drainTimeout,
    Optional<Path> pluginDir,
    Duration taskCacheTtl,
    Set<BuiltInHandler> builtinHandlers,
    Duration httpConnectTimeout,
    List<String> queues,
    int maxAbandonedRuns,
    Duration stopGrace,
    Duration fenceMargin,
    GroupProtocol groupProtocol,
    boolean staticMembership,
    Optional<Path> pluginAllowlist,
    boolean republishReleased,
    boolean virtualThreads,
    Duration claimAhead) {

  /** The longest {@code worker.claim-ahead}: records held for their instant are due within it. */
  public static final Duration MAX_CLAIM_AHEAD = Duration.ofSeconds(1);

  /** The admin port of a worker unless configured. */
  public static final int DEFAULT_ADMIN_PORT = 8082;

  /** Runs at once unless configured. */
  public static final int DEFAULT_CONCURRENCY = 4;

  /** The largest {@code worker.prefetch}. */
  public static final int MAX_PREFETCH = 100_000;

  /** The consumer group unless configured. */
  public static final String DEFAULT_GROUP = "carillon-workers";

  /** How long shutdown waits for running instances unless configured. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /** The longest adaptive heartbeat interval. */
  public static final Duration MAX_DEFAULT_HEARTBEAT = Duration.ofSeconds(10);

  /** How long a task definition is cached unless configured. */
  public static final Duration DEFAULT_TASK_CACHE_TTL = Duration.ofSeconds(5);

  /** Abandoned runs at once that make the worker give up, unless configured. */
  public static final int DEFAULT_MAX_ABANDONED_RUNS = 3;

  /** How long a stopped run may take to end unless configured. */
  public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(5);

  /** How long before a lease can expire an unrenewed run is stopped, unless configured. */
  public static final Duration DEFAULT_FENCE_MARGIN = Duration.ofSeconds(10);

  /** Kafka's consumer group protocols a worker can use. */
  public enum GroupProtocol {
    /** The classic rebalance protocol ({@code group.protocol=classic}). */
    CLASSIC,
    /** KIP-848's protocol ({@code group.protocol=consumer}); the broker must enable it. */
    CONSUMER;

    /** The value of Kafka's {@code group.protocol}. */
    public String kafkaName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * Every key {@link #from} reads: the shared db, kafka, admin and instance keys of {@link
   * dev.carillon.config.CommonSettings#KEYS} without {@code zk.*} and {@code clock.offset}, then
   * the worker's own. Deploy files and the operator guide are checked against it; a test holds it
   * to what {@link #from} reads.
   */
  public static final List<String> KEYS =
      Stream.concat(
              CommonSettings.KEYS_WITHOUT_ZK_OR_CLOCK.stream(),
              Stream.of(
                  "worker.concurrency",
                  "worker.prefetch",
                  "worker.group",
                  "worker.topic",
                  "worker.max-summary-bytes",
                  "worker.heartbeat-interval",
                  "worker.drain-timeout",
                  "worker.plugin-dir",
                  "worker.task-cache-ttl",
                  "worker.builtin-handlers",
                  "worker.http.connect-timeout",
                  "worker.queues",
                  "worker.max-abandoned-runs",
                  "worker.stop-grace",
                  "worker.fence-margin",
                  "worker.group-protocol",
                  "worker.static-membership",
                  "worker.plugin-allowlist",
                  "worker.republish-released",
                  "worker.virtual-threads",
                  "worker.claim-ahead"))
          .toList();

  public WorkerSettings {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(kafka, "kafka");
    Objects.requireNonNull(admin, "admin");
    if (workerId == null || workerId.isBlank() || workerId.length() > 128) {
      throw new IllegalArgumentException(
          "workerId must be 1..128 characters, was '" + workerId + "'");
    }
    if (concurrency < 1 || concurrency > 1024) {
      throw new IllegalArgumentException("concurrency must be 1..1024, was " + concurrency);
    }
    if (prefetch < 0 || prefetch > MAX_PREFETCH) {
      throw new IllegalArgumentException(
          "prefetch must be 0.." + MAX_PREFETCH + ", was " + prefetch);
    }
    if (group == null || group.isBlank()) {
      throw new IllegalArgumentException("group must not be blank");
    }
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must not be blank");
    }
    if (maxSummaryBytes < 16) {
      throw new IllegalArgumentException(
          "maxSummaryBytes must be at least 16, was " + maxSummaryBytes);
    }
    Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    Objects.requireNonNull(pluginDir, "pluginDir");
    Objects.requireNonNull(taskCacheTtl, "taskCacheTtl");
    builtinHandlers = Set.copyOf(builtinHandlers);
    Objects.requireNonNull(httpConnectTimeout, "httpConnectTimeout");
    queues = List.copyOf(new TreeSet<>(queues));
    if (queues.isEmpty()) {
      throw new IllegalArgumentException("worker.queues must name at least one queue");
    }
    for (String q : queues) {
      if (!TaskDefinition.QUEUE_PATTERN.matcher(q).matches()) {
        throw new IllegalArgumentException(
            "worker.queues: queue '"
                + q
                + "' must match "
                + TaskDefinition.QUEUE_PATTERN.pattern());
      }
    }
    if (maxAbandonedRuns < 1) {
      throw new IllegalArgumentException(
          "maxAbandonedRuns must be at least 1, was " + maxAbandonedRuns);
    }
    Objects.requireNonNull(stopGrace, "stopGrace");
    Objects.requireNonNull(fenceMargin, "fenceMargin");
    // The fence inequality's configured part (LeaseFence): a run asked to stop must have ended, or
    // be counted as abandoned, before the lease it could not renew can expire.
    if (stopGrace.compareTo(fenceMargin) >= 0) {
      throw new IllegalArgumentException(
          "worker.stop-grace ("
              + Durations.format(stopGrace)
              + ") must be shorter than worker.fence-margin ("
              + Durations.format(fenceMargin)
              + "): a run stopped because its lease could not be renewed must end before the"
              + " lease can expire");
    }
    Objects.requireNonNull(groupProtocol, "groupProtocol");
    Objects.requireNonNull(pluginAllowlist, "pluginAllowlist");
    if (claimAhead.isNegative() || claimAhead.compareTo(MAX_CLAIM_AHEAD) > 0) {
      throw new IllegalArgumentException(
          "worker.claim-ahead must be 0s.."
              + Durations.format(MAX_CLAIM_AHEAD)
              + ", was "
              + Durations.format(claimAhead));
    }
  }

  /**
   * Reads the settings. The database and Kafka keys are read by {@link CommonSettings#db} and
   * {@link CommonSettings#kafka}; the whole of {@code CommonSettings.from} is not used because it
   * requires {@code zk.connect}, and workers do not use ZooKeeper.
   *
   * @throws ConfigException naming the key, its source and the value when one is missing or wrong
   */
  public static WorkerSettings from(Config c) {
    DbSettings db = CommonSettings.db(c);
    KafkaSettings kafka = CommonSettings.kafka(c);
    try {
      return new WorkerSettings(
          db,
          kafka,
          CommonSettings.instancePartitions(c),
          HttpServerSettings.admin(c, c.integer("admin.port", DEFAULT_ADMIN_PORT, 0, 65535)),
          c.string("instance.id", ManagementFactory.getRuntimeMXBean().getName()),
          c.integer("worker.concurrency", DEFAULT_CONCURRENCY, 1, 1024),
          c.integer("worker.prefetch", 0, 0, MAX_PREFETCH),
          c.string("worker.group", DEFAULT_GROUP),
          c.string("worker.topic", Topics.INSTANCES),
          c.integer(
              "worker.max-summary-bytes", AgentResult.DEFAULT_MAX_SUMMARY_BYTES, 16, 1024 * 1024),
          c.optional("worker.heartbeat-interval").isPresent()
              ? Optional.of(
                  c.duration(
                      "worker.heartbeat-interval",
                      MAX_DEFAULT_HEARTBEAT,
                      Duration.ofMillis(50),
                      Duration.ofMinutes(10)))
              : Optional.empty(),
          c.duration(
              "worker.drain-timeout", DEFAULT_DRAIN_TIMEOUT, Duration.ZERO, Duration.ofHours(1)),
          c.optional("worker.plugin-dir").map(Path::of),
          c.duration(
              "worker.task-cache-ttl",
              DEFAULT_TASK_CACHE_TTL,
              Duration.ZERO,
              Duration.ofMinutes(10)),
          builtinHandlers(c.string("worker.builtin-handlers", "exec,http")),
          c.duration(
              "worker.http.connect-timeout",
              HttpAgents.DEFAULT_CONNECT_TIMEOUT,
              Duration.ofMillis(100),
              Duration.ofMinutes(1)),
          queues(c.string("worker.queues", TaskDefinition.DEFAULT_QUEUE)),
          c.integer("worker.max-abandoned-runs", DEFAULT_MAX_ABANDONED_RUNS, 1, 1024),
          c.duration(
              "worker.stop-grace",
              DEFAULT_STOP_GRACE,
              Duration.ofMillis(100),
              Duration.ofMinutes(10)),
          c.duration(
              "worker.fence-margin",
              DEFAULT_FENCE_MARGIN,
              Duration.ofMillis(200),
              Duration.ofHours(1)),
          groupProtocol(c.string("worker.group-protocol", "classic")),
          c.bool("worker.static-membership", true),
          c.optional("worker.plugin-allowlist").map(Path::of),
          c.bool("worker.republish-released", true),
          c.bool("worker.virtual-threads", false),
          c.duration("worker.claim-ahead", Duration.ZERO, Duration.ZERO, MAX_CLAIM_AHEAD));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e);
    }
  }

  /**
   * The built-in handlers named in {@code text}, e.g. {@code exec,http}; blank for none.
   *
   * @throws IllegalArgumentException naming the key and the value when a name is not a built-in
   *     handler
   */
  static Set<BuiltInHandler> builtinHandlers(String text) {
    Set<BuiltInHandler> out = EnumSet.noneOf(BuiltInHandler.class);
    for (String name : text.split(",")) {
      String n = name.trim();
      if (n.isEmpty()) {
        continue;
      }
      out.add(
          BuiltInHandler.of(n)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "worker.builtin-handlers must list exec and/or http, was '"
                              + text
                              + "' ('"
                              + n
                              + "' is not a built-in handler)")));
    }
    return out;
  }

  private static List<String> queues(String text) {
    List<String> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String q = part.trim();
      if (q.isEmpty()) {
        throw new IllegalArgumentException(
            "worker.queues='" + text + "': an empty queue name (a stray comma?)");
      }
      out.add(q);
    }
    return out;
  }

  private static GroupProtocol groupProtocol(String text) {
    try {
      return GroupProtocol.valueOf(text.trim().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "worker.group-protocol='" + text + "' must be classic or consumer");
    }
  }

  /** One line for the startup log; secrets masked. */
  public String describe() {
    return "db="
        + db
        + " kafka="
        + kafka.describe()
        + " admin="
        + admin.bindAddress()
        + ":"
        + admin.port()
        + " workerId="
        + workerId
        + " concurrency="
        + concurrency
        + " prefetch="
        + prefetch
        + " group="
        + group
        + " topic="
        + topic
        + " maxSummaryBytes="
        + maxSummaryBytes
        + " heartbeatInterval="
        + heartbeatInterval.map(Duration::toString).orElse("timeout/3 (at most 10s)")
        + " drainTimeout="
        + drainTimeout
        + " pluginDir="
        + pluginDir.map(Path::toString).orElse("<none>")
        + " taskCacheTtl="
        + taskCacheTtl
        + " builtinHandlers="
        + builtinHandlers.stream().map(BuiltInHandler::handler).sorted().toList()
        + " httpConnectTimeout="
        + httpConnectTimeout
        + " queues="
        + String.join(",", queues)
        + " maxAbandonedRuns="
        + maxAbandonedRuns
        + " stopGrace="
        + stopGrace
        + " fenceMargin="
        + fenceMargin
        + " groupProtocol="
        + groupProtocol.kafkaName()
        + " staticMembership="
        + staticMembership
        + " pluginAllowlist="
        + pluginAllowlist.map(Path::toString).orElse("<none: every jar>")
        + " republishReleased="
        + republishReleased
        + " instancePartitions="
        + instancePartitions
        + " virtualThreads="
        + virtualThreads
        + " claimAhead="
        + Durations.format(claimAhead);
  }
}
