package dev.carillon.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.faults.Services.Role;
import dev.carillon.faults.Services.Service;
import dev.carillon.model.Durations;
import dev.carillon.schedctl.Schedctl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault-injection suite (issues 7 and 20): PostgreSQL, Kafka and ZooKeeper in one child
 * process, two triggers, three workers and two retry services as separate processes (each in a
 * network namespace of its own where they can be made, see {@link NetworkNamespaces}), 50 tasks
 * firing every 2-3 seconds, and a fault schedule in cycles of {@link #CYCLE}: kill -9,
 * SIGSTOP/SIGCONT, server restarts and partitions. At the end the invariants are computed from the
 * database and printed with the fault tally; then the bad-input cases run against the same live
 * system.
 *
 * <p>{@code -Dfaults.duration} sets the workload length (default 100s, one cycle, in the README's
 * test command; {@code faults/run-full.sh} runs 30m). With long outages ({@code
 * -Dfaults.long-outages=true}, or a workload of 30 minutes or more) the run is laid out in blocks
 * of a short-fault cycle followed by PostgreSQL hung, ZooKeeper down and Kafka down under a burst
 * of 100 fires/s (see {@link LongOutages}). Logs and the summary land in {@code
 * faults/target/run-<timestamp>/}.
 */
@Tag("faults")
class FaultSuiteIT {
  private static final Duration RESTART_PAUSE = Duration.ofSeconds(5);
  private static final Duration WORKER_KILL_EVERY = Duration.ofSeconds(20);
  private static final Duration FREEZE_FOR = Workload.TASK_TIMEOUT.plusSeconds(8);
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final Duration SETTLE = Duration.ofSeconds(90);

  /** Longer than the ZooKeeper session (4 s), the lease (10 s) and Kafka's session (10 s). */
  private static final Duration PARTITION_FOR = Duration.ofSeconds(15);

  /** The length of one cycle of faults; a run of {@code d} has {@code d / CYCLE} of them. */
  private static final Duration CYCLE = Duration.ofSeconds(100);

  /** How long a fault aimed at a leader waits for one. */
  private static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  /** Liveness requests per sample before "no answer" counts, as a probe's failure threshold. */
  private static final int LIVE_PROBE_TRIES = 3;

  /** Past the trigger's ZooKeeper session (4 s): the standby takes over while it is stopped. */
  private static final Duration LEADER_FREEZE_FOR = Duration.ofSeconds(12);

  /**
   * The longest a frozen trigger leader stays stopped while no successor has taken a newer epoch. A
   * standby that was itself cut from ZooKeeper just before (12-27 of the cycle) may take that long
   * to rejoin the election under load; resuming before a successor exists would prove nothing.
   */
  private static final Duration LEADER_FREEZE_MAX = Duration.ofSeconds(40);

  /** How long a resumed leader is watched for writes. */
  private static final Duration LEADER_WATCH = Duration.ofSeconds(10);

  private static final String SKEWED_TRIGGER = "trigger-2";
  private static final String SKEW = "30s";
  // trigger-1 creates windows ahead of their fire time and publishes them on the instant; trigger-2
  // does not, so both ways run under the faults as leadership moves between them.
  private static final String AHEAD_TRIGGER = "trigger-1";
  private static final String AHEAD = "300ms";

  /**
   * worker-1 claims ahead: the instances trigger-1 creates ahead reach it before their fire time,
   * and it must hold each until then (by the database's clock, which PostgreSQL's crash, restart
   * and hang make it lose for a while). It is killed, frozen and cut like the other workers.
   */
  private static final String CLAIM_AHEAD_WORKER = "worker-1";

  private static final String CLAIM_AHEAD = "50ms";

  /** Set (by {@code .ci/run}) where partitions must run: the suite fails if it cannot make them. */
  static final String REQUIRE_NAMESPACES = "CARILLON_FAULTS_REQUIRE_NETNS";

  private static final List<FaultLog.Kind> PARTITIONS =
      List.of(
          FaultLog.Kind.PARTITION_TRIGGER_ZK,
          FaultLog.Kind.PARTITION_WORKER_PG,
          FaultLog.Kind.PARTITION_RETRY_KAFKA,
          FaultLog.Kind.PARTITION_WORKER_KAFKA);
  private static final Logger log = LoggerFactory.getLogger(FaultSuiteIT.class);

  /**
   * The triggers' in-memory dispatch queue in runs with long outages: small, so that a Kafka outage
   * at {@link LongOutages#FIRES_PER_SECOND} fills it within seconds and the overflow is left in the
   * database for the sweep.
   */
  private static final int DISPATCH_BACKLOG_BOUND = 2000;

  /** How often the triggers' metrics are sampled around a long Kafka outage. */
  private static final Duration SAMPLE_EVERY = Duration.ofSeconds(2);

  /** How long after Kafka's return the alert metric is watched for falling back. */
  private static final Duration FALL_BACK_MAX = Duration.ofMinutes(4);

  /** How long the backlog of a run with long outages may take to drain before the checks. */
  private static final Duration SETTLE_LONG = Duration.ofMinutes(10);

  /**
   * The exit code of a service that gives up on itself (a worker whose runs did not stop when
   * asked, see worker.max-abandoned-runs) so that its orchestrator restarts it.
   */
  private static final int GIVE_UP_EXIT = 3;

  /** How often runs with long outages look for services that gave up, to restart them. */
  private static final Duration SUPERVISE_EVERY = Duration.ofSeconds(5);

  /** How long services get to be ready again (and leaders elected) after a long outage. */
  private static final Duration RECOVER_WITHIN = Duration.ofSeconds(90);

  private final FaultLog faults = new FaultLog();
  private final List<String> harnessErrors = Collections.synchronizedList(new ArrayList<>());
  private final List<Invariants.Zombie> zombies = Collections.synchronizedList(new ArrayList<>());
  private final Set<String> frozen = Collections.synchronizedSet(new HashSet<>());
  private final List<Invariants.FrozenLeader> frozenLeaders =
      Collections.synchronizedList(new ArrayList<>());
  private final List<LongOutages.KafkaOutage> kafkaOutages =
      Collections.synchronizedList(new ArrayList<>());
  private final List<Invariants.Check> outageChecks =
      Collections.synchronizedList(new ArrayList<>());
  private StackProcess.Endpoints endpoints;
  private NetworkNamespaces lab;

  @Test
  void the_system_keeps_its_invariants_under_kills_freezes_and_restarts() throws Exception {
    long t0 = System.nanoTime();
    Duration duration =
        Durations.tryParse(System.getProperty("faults.duration", "100s")).orElseThrow();
    Path root = Path.of(System.getProperty("faults.root", "..")).toAbsolutePath().normalize();
    Path runDir =
        Path.of(System.getProperty("faults.runDir", "target"))
            .resolve(
                "run-"
                    + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
    Path pluginDir = Files.createDirectories(runDir.resolve("plugins"));
    Files.copy(
        Path.of(System.getProperty("faults.pluginJar")),
        pluginDir.resolve("faults-ledger.jar"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        root.resolve("example-agents/target/example-agents-0.1.0-SNAPSHOT.jar"),
        pluginDir.resolve("example-agents.jar"),
        StandardCopyOption.REPLACE_EXISTING);
    // FollowUpAgent (example-agents) calls the Java client, which the worker does not bundle: one
    // class loader reads the whole plugin directory, so the client's jar goes beside it (without
    // it the worker refuses to start: "Unable to get public no-arg constructor").
    Files.copy(
        root.resolve("carillon-client/target/carillon-client-0.1.0-SNAPSHOT.jar"),
        pluginDir.resolve("carillon-client.jar"),
        StandardCopyOption.REPLACE_EXISTING);
    LongOutages.Settings longOutages = LongOutages.Settings.fromSystemProperties(duration);
    long seed = Long.getLong("faults.seed", System.currentTimeMillis());
    Random random = new Random(seed);

    Optional<String> noNamespaces = NetworkNamespaces.unavailableReason();
    if (noNamespaces.isPresent()) {
      // CI runs as root and sets this: there, partitions must run.
      assertThat(System.getenv(REQUIRE_NAMESPACES))
          .as(
              "%s is set but network namespaces are unavailable: %s",
              REQUIRE_NAMESPACES, noNamespaces.get())
          .isNull();
      log.warn("Partitions are skipped: {}", noNamespaces.get());
    }
    try (NetworkNamespaces lab = noNamespaces.isEmpty() ? NetworkNamespaces.create() : null;
        StackProcess stack =
            StackProcess.start(
                Files.createDirectories(runDir.resolve("stack")),
                runDir.resolve("devstack.log"),
                stackOptions(lab));
        Services services = new Services(root, runDir, pluginDir, stack.endpoints(), lab)) {
      endpoints = stack.endpoints();
      this.lab = lab;
      // The deploy steps, as in production: the services neither migrate nor create topics.
      services.runStep(Role.TRIGGER, "migrate");
      services.runStep(Role.TRIGGER, "create-topics");
      // trigger-2's clock runs fast all along; it leads after each kill or cut of trigger-1.
      for (String name : List.of("trigger-1", "trigger-2")) {
        Map<String, String> env = new HashMap<>();
        if (name.equals(SKEWED_TRIGGER)) {
          env.put("CARILLON_CLOCK_OFFSET", SKEW);
        }
        if (name.equals(AHEAD_TRIGGER)) {
          env.put("CARILLON_TRIGGER_CREATE_AHEAD", AHEAD);
        }
        if (longOutages.enabled()) {
          env.put(
              "CARILLON_TRIGGER_MAX_DISPATCH_BACKLOG", Integer.toString(DISPATCH_BACKLOG_BOUND));
        }
        services.environment(name, env);
      }
      faults.add(FaultLog.Kind.CLOCK_SKEW, SKEWED_TRIGGER, "clock " + SKEW + " fast, whole run");
      faults.add(FaultLog.Kind.CREATE_AHEAD, AHEAD_TRIGGER, AHEAD);
      for (String name : List.of("trigger-1", "trigger-2")) {
        services.start(name, Role.TRIGGER);
      }
      services.environment(CLAIM_AHEAD_WORKER, Map.of("CARILLON_WORKER_CLAIM_AHEAD", CLAIM_AHEAD));
      faults.add(FaultLog.Kind.CLAIM_AHEAD, CLAIM_AHEAD_WORKER, CLAIM_AHEAD);
      for (String name : List.of("worker-1", "worker-2", "worker-3")) {
        services.start(name, Role.WORKER);
      }
      for (String name : List.of("retry-1", "retry-2")) {
        services.start(name, Role.RETRY);
      }
      await("every service answers and one trigger and one retry service lead")
          .atMost(Duration.ofMinutes(2))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  services.all().stream().allMatch(s -> services.health(s).isPresent())
                      && services.leader(Role.TRIGGER).isPresent()
                      && services.leader(Role.RETRY).isPresent());

      try (Connection c = connect();
          Statement st = c.createStatement()) {
        // Created after the migrate step (Flyway refuses a non-empty schema without its history
        // table). The ledger (see LedgerAgent): deliberately not unique on
        // (task, window, attempt), so a
        // repeated execution shows up as a second row instead of being refused.
        st.execute(
            "CREATE TABLE IF NOT EXISTS ledger (id BIGSERIAL PRIMARY KEY, task_id VARCHAR(64) NOT"
                + " NULL, window_key VARCHAR(64) NOT NULL, attempt INT NOT NULL, worker_id"
                + " VARCHAR(128) NOT NULL, started_at TIMESTAMPTZ NOT NULL, inserted_at"
                + " TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp())");
        st.execute("CREATE INDEX IF NOT EXISTS ix_ledger ON ledger (task_id, window_key, attempt)");
        // The effect table (see LedgerAgent): one row per call of the window's effect; applied
        // only for the first call with its idempotency key, so a repeated call shows as a row
        // that was not applied and an effect applied twice as two applied rows.
        st.execute(
            "CREATE TABLE IF NOT EXISTS ledger_effect (id BIGSERIAL PRIMARY KEY, call_id"
                + " VARCHAR(64) NOT NULL UNIQUE, task_id VARCHAR(64) NOT NULL, window_key"
                + " VARCHAR(64) NOT NULL, attempt INT NOT NULL, worker_id VARCHAR(128) NOT NULL,"
                + " effect_key VARCHAR(256) NOT NULL, in_doubt BOOLEAN NOT NULL, applied BOOLEAN"
                + " NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now())");
        st.execute("CREATE INDEX IF NOT EXISTS ix_ledger_effect ON ledger_effect (effect_key)");
      }
      List<Workload.TaskSpec> regular = Workload.tasks(random);
      apply(runDir.resolve("workload.yaml"), regular);

      // The run's windows are the fire times in [start, end]; start leaves the trigger a few
      // seconds to pick the new tasks up.
      Instant start = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
      List<Workload.TaskSpec> tasks = new ArrayList<>(regular);
      List<LongOutages.Block> blocks = List.of();
      Instant end;
      int cycles;
      // Several threads: a fault that waits for a leader to appear must not delay the others.
      ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4);
      if (longOutages.enabled()) {
        // Blocks of [short-fault cycle][PostgreSQL hung][ZooKeeper down][burst, Kafka down]; the
        // burst tasks fire only inside their burst (their crons name its minutes), and are applied
        // now, well before the first burst.
        blocks = LongOutages.layout(start, longOutages.blocks(duration), longOutages);
        List<Workload.TaskSpec> burst = LongOutages.burstTasks(blocks);
        apply(runDir.resolve("burst.yaml"), burst);
        tasks.addAll(burst);
        end = blocks.get(blocks.size() - 1).end();
        cycles = blocks.size();
        log.info("Long outages ({}x): {}", longOutages.scale(), blocks);
        scheduleBlocks(scheduler, services, stack, random, blocks);
        // As an orchestrator would: a worker cut from or waiting on PostgreSQL may give up (exit
        // 3); left down for the rest of a long run, the backlog after each Kafka outage would
        // drain on one worker.
        scheduler.scheduleWithFixedDelay(
            () -> restartGivenUp(services),
            SUPERVISE_EVERY.toMillis(),
            SUPERVISE_EVERY.toMillis(),
            TimeUnit.MILLISECONDS);
      } else {
        end = start.plus(duration);
        cycles = Math.max(1, (int) Math.round(duration.toSeconds() / (double) CYCLE.toSeconds()));
        scheduleFaults(scheduler, services, stack, random, start, duration, cycles);
      }
      Duration span = Duration.between(start, end);
      await("the workload runs until " + end)
          .atMost(span.plusMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> Instant.now().isAfter(end.plus(FREEZE_FOR).plusSeconds(2)));
      int outages = blocks.size();
      if (outages > 0) {
        try {
          await("the samples of every long Kafka outage are complete")
              .atMost(FALL_BACK_MAX.plusMinutes(1))
              .pollInterval(Duration.ofSeconds(1))
              .until(() -> kafkaOutages.size() >= outages);
        } catch (ConditionTimeoutException e) {
          harnessErrors.add(
              kafkaOutages.size() + " of " + outages + " Kafka outages sampled to the end");
        }
      }
      scheduler.shutdownNow();
      scheduler.awaitTermination(2, TimeUnit.MINUTES);
      recoverAll(services);

      settle(regular, end, outages > 0 ? SETTLE_LONG : SETTLE, outages > 0);
      Invariants.Report report;
      try (Connection c = connect()) {
        report =
            Invariants.check(c, tasks, start, end, faults, zombies, GRACE)
                .plus(frozenLeaders.stream().map(Invariants::frozenLeader).toList())
                .plus(List.copyOf(outageChecks))
                .plus(kafkaOutages.stream().map(LongOutages::kafkaOutage).toList());
      }

      List<BadInputs.Outcome> bad =
          new BadInputs(runDir, schedctlEnv(), this::connect, services, endpoints.kafka()).runAll();

      Map<String, Long> peaks = new java.util.TreeMap<>(services.peakRssKb());
      Services.vmHwmKb(stack.pid())
          .ifPresent(kb -> peaks.put("devstack JVM (Kafka, ZooKeeper)", kb));
      String summary =
          Summary.render(
              span,
              seed,
              faults,
              report,
              bad,
              harnessErrors,
              Duration.ofNanos(System.nanoTime() - t0),
              noNamespaces
                  .map(why -> "Partitions: SKIPPED, " + why)
                  .orElse(
                      "Partitions: every service in a network namespace of its own, servers on "
                          + lab.serverAddress()),
              peaks,
              List.copyOf(kafkaOutages));
      System.out.println(summary);
      Files.writeString(runDir.resolve("summary.txt"), summary);

      assertThat(harnessErrors).as("harness errors").isEmpty();
      assertThat(report.checks())
          .allSatisfy(c -> assertThat(c.ok()).as(c.name() + ": " + c.detail()).isTrue());
      assertThat(bad)
          .allSatisfy(b -> assertThat(b.ok()).as(b.input() + ": " + b.observed()).isTrue());
      List<FaultLog.Kind> required =
          new ArrayList<>(
              List.of(
                  FaultLog.Kind.KILL_WORKER,
                  FaultLog.Kind.KILL_TRIGGER_LEADER,
                  FaultLog.Kind.KILL_RETRY_LEADER,
                  FaultLog.Kind.FREEZE_WORKER,
                  FaultLog.Kind.KAFKA_RESTART,
                  FaultLog.Kind.POSTGRES_RESTART));
      required.add(FaultLog.Kind.FREEZE_TRIGGER_LEADER);
      required.add(FaultLog.Kind.POSTGRES_CRASH);
      if (lab != null) {
        required.addAll(PARTITIONS);
      }
      if (outages > 0) {
        required.addAll(
            List.of(
                FaultLog.Kind.POSTGRES_HANG,
                FaultLog.Kind.ZOOKEEPER_DOWN,
                FaultLog.Kind.KAFKA_DOWN));
        assertThat(kafkaOutages).as("Kafka outages sampled").hasSize(outages);
      }
      for (FaultLog.Kind k : required) {
        assertThat(faults.faultCounts().getOrDefault(k, 0))
            .as("%s injected once per cycle", k)
            .isGreaterThanOrEqualTo(cycles);
      }
      assertThat(services.all())
          .allSatisfy(
              s ->
                  assertThat(s.process().isAlive())
                      .as(s.name() + " alive (services must reconnect, not die)")
                      .isTrue());
    }
  }

  /**
   * The fault schedule, relative to the start of the run: a worker killed every {@link
   * #WORKER_KILL_EVERY} throughout, and {@code cycles} equal cycles each injecting every other
   * fault kind once, at the same fractions of the cycle.
   */
  private void scheduleFaults(
      ScheduledExecutorService scheduler,
      Services services,
      StackProcess stack,
      Random random,
      Instant start,
      Duration d,
      int cycles) {
    long base = Duration.between(Instant.now(), start).toMillis();
    for (long t = 15_000; t < d.toMillis() - 5_000; t += WORKER_KILL_EVERY.toMillis()) {
      at(scheduler, base + t, () -> killRandomWorker(services, scheduler, random));
    }
    // One cycle, in hundredths (leaders and standbys must be in place when a fault needs them):
    //  8-26 a worker frozen        12-27 trigger leader cut from ZooKeeper (the other takes over)
    // 30-45 a worker cut from PostgreSQL (the busiest: work flows again by then)
    // 30-42 trigger leader frozen, watched until 52 (no trigger kill before 55)
    // 45 retry leader killed      55 trigger leader killed (restarted, ready before 80)
    // 60 Kafka stopped for 5 s    66-81 retry leader cut from Kafka     70 PostgreSQL restarted
    // 80 trigger leader killed    84-99 a worker cut from Kafka   93 PostgreSQL crashed (5 s)
    Duration cycle = d.dividedBy(cycles);
    for (int i = 0; i < cycles; i++) {
      scheduleCycle(scheduler, services, stack, base + cycle.toMillis() * i, cycle);
    }
  }

  /** One cycle of the short faults (every kind but the worker kills), from {@code c} ms on. */
  private void scheduleCycle(
      ScheduledExecutorService scheduler,
      Services services,
      StackProcess stack,
      long c,
      Duration cycle) {
    at(scheduler, c + fraction(cycle, 0.08), () -> freezeBusiestWorker(services, scheduler));
    at(scheduler, c + fraction(cycle, 0.45), () -> killLeader(services, scheduler, Role.RETRY));
    at(scheduler, c + fraction(cycle, 0.55), () -> killLeader(services, scheduler, Role.TRIGGER));
    at(scheduler, c + fraction(cycle, 0.60), () -> restartKafka(stack, scheduler));
    at(
        scheduler,
        c + fraction(cycle, 0.70),
        () -> {
          // Logged before and after: the restart's span is when connections were cut.
          faults.add(FaultLog.Kind.POSTGRES_RESTART, "postgres", "same port, same data");
          stack.command("restart-postgres");
          faults.add(FaultLog.Kind.POSTGRES_STARTED, "postgres", "after the restart");
        });
    at(scheduler, c + fraction(cycle, 0.80), () -> killLeader(services, scheduler, Role.TRIGGER));
    at(scheduler, c + fraction(cycle, 0.30), () -> freezeLeader(services, scheduler));
    at(scheduler, c + fraction(cycle, 0.93), () -> crashPostgres(stack, scheduler));
    if (lab != null) {
      at(
          scheduler,
          c + fraction(cycle, 0.12),
          () -> partitionLeader(services, scheduler, FaultLog.Kind.PARTITION_TRIGGER_ZK));
      at(
          scheduler,
          c + fraction(cycle, 0.30),
          () -> partitionWorker(services, scheduler, FaultLog.Kind.PARTITION_WORKER_PG));
      at(
          scheduler,
          c + fraction(cycle, 0.66),
          () -> partitionLeader(services, scheduler, FaultLog.Kind.PARTITION_RETRY_KAFKA));
      at(
          scheduler,
          c + fraction(cycle, 0.84),
          () -> partitionWorker(services, scheduler, FaultLog.Kind.PARTITION_WORKER_KAFKA));
    }
  }

  /**
   * The schedule of a run with long outages: per block, a short-fault cycle with a worker kill
   * every {@link #WORKER_KILL_EVERY} (none during the long outages, so that every repeat has one
   * cause and no service starts against a server that is away), then PostgreSQL hung, ZooKeeper
   * down and Kafka down under the burst (see {@link LongOutages}).
   */
  private void scheduleBlocks(
      ScheduledExecutorService scheduler,
      Services services,
      StackProcess stack,
      Random random,
      List<LongOutages.Block> blocks) {
    Instant now = Instant.now();
    for (LongOutages.Block b : blocks) {
      long c = Duration.between(now, b.shortCycleAt()).toMillis();
      Duration cycle = LongOutages.SHORT_CYCLE;
      for (long t = 15_000; t < cycle.toMillis() - 5_000; t += WORKER_KILL_EVERY.toMillis()) {
        at(scheduler, c + t, () -> killRandomWorker(services, scheduler, random));
      }
      scheduleCycle(scheduler, services, stack, c, cycle);
      at(
          scheduler,
          Duration.between(now, b.postgresHangAt()).toMillis(),
          () -> hangPostgres(services, stack, scheduler, b));
      at(
          scheduler,
          Duration.between(now, b.zooKeeperDownAt()).toMillis(),
          () -> stopZooKeeper(services, stack, scheduler, b));
      at(
          scheduler,
          Duration.between(now, b.kafkaDownAt()).toMillis(),
          () -> stopKafka(services, stack, scheduler, b));
    }
  }

  /**
   * PostgreSQL SIGSTOPped (every process) for the block's hang; in its middle and near its end each
   * service must still answer {@code /health/live} with 200 while its readiness names postgres, and
   * after the SIGCONT every service must be ready again.
   */
  private void hangPostgres(
      Services services,
      StackProcess stack,
      ScheduledExecutorService scheduler,
      LongOutages.Block b) {
    stack.command("freeze-postgres");
    Instant hungAt = Instant.now();
    faults.add(FaultLog.Kind.POSTGRES_HANG, "postgres", "SIGSTOP for " + b.postgresHang());
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    List<String> starting = Collections.synchronizedList(new ArrayList<>());
    for (double f : new double[] {0.5, 0.9}) {
      at(
          scheduler,
          (long) (b.postgresHang().toMillis() * f),
          () -> {
            for (Service s : services.all()) {
              if (!s.process().isAlive()) {
                continue;
              }
              Optional<Instant> started = s.process().info().startInstant();
              if (started.isPresent() && started.get().isAfter(hungAt)) {
                // (Re)started during the hang, it is still starting (waiting for PostgreSQL, no
                // admin port yet): an orchestrator's startup probe, not its liveness probe, covers
                // that.
                starting.add(s.name() + " started " + started.get() + ", during the hang");
                continue;
              }
              // The body of a 503 names the stalled loop: kept, so that a failure explains itself.
              String live = services.liveAnswer(s, LIVE_PROBE_TRIES).orElse("-1");
              String pg =
                  services
                      .health(s, LIVE_PROBE_TRIES)
                      .map(h -> h.path("postgres").asText("?"))
                      .orElse("no answer");
              seen.add(s.name() + " live " + live + " postgres " + pg);
            }
          });
    }
    at(
        scheduler,
        b.postgresHang().toMillis(),
        () -> {
          stack.command("thaw-postgres");
          faults.add(FaultLog.Kind.POSTGRES_THAWED, "postgres", "SIGCONT");
          Duration ready = awaitAllReady(services);
          List<String> during = List.copyOf(seen);
          boolean liveAll =
              !during.isEmpty() && during.stream().allMatch(x -> x.contains(" live 200 "));
          boolean namedAll = during.stream().allMatch(x -> x.contains(" postgres DOWN"));
          outageChecks.add(
              new Invariants.Check(
                  "PostgreSQL hung "
                      + b.postgresHang().toSeconds()
                      + " s (block "
                      + b.index()
                      + "): every service live throughout, readiness naming postgres, ready again"
                      + " after SIGCONT",
                  liveAll && namedAll && ready != null,
                  during.size()
                      + " samples during the hang ("
                      + Duration.between(hungAt, Instant.now()).toSeconds()
                      + " s ago)"
                      + (liveAll ? ", all live" : ", NOT all live")
                      + (namedAll ? ", all naming postgres DOWN" : ", NOT all naming postgres")
                      + (ready == null
                          ? "; NOT all ready within " + RECOVER_WITHIN
                          : "; all ready " + ready.toSeconds() + " s after SIGCONT")
                      + (starting.isEmpty() ? "" : "; not sampled, starting: " + starting)
                      + (liveAll && namedAll ? "" : "; " + during)));
        });
  }

  /**
   * ZooKeeper stopped for the block's outage: the leaders step down; after it starts again one
   * trigger and one retry service must lead again (the windows of the gap are made up, which the
   * invariants check).
   */
  private void stopZooKeeper(
      Services services,
      StackProcess stack,
      ScheduledExecutorService scheduler,
      LongOutages.Block b) {
    stack.command("stop-zookeeper");
    faults.add(FaultLog.Kind.ZOOKEEPER_DOWN, "zookeeper", "down for " + b.zooKeeperDown());
    at(
        scheduler,
        b.zooKeeperDown().toMillis(),
        () -> {
          stack.command("start-zookeeper");
          Instant back = Instant.now();
          faults.add(FaultLog.Kind.ZOOKEEPER_STARTED, "zookeeper", "same port, same data");
          boolean led;
          try {
            await("a trigger and a retry leader after ZooKeeper returned")
                .atMost(RECOVER_WITHIN)
                .pollInterval(Duration.ofMillis(500))
                .until(
                    () ->
                        services.leader(Role.TRIGGER).isPresent()
                            && services.leader(Role.RETRY).isPresent());
            led = true;
          } catch (ConditionTimeoutException e) {
            led = false;
          }
          outageChecks.add(
              new Invariants.Check(
                  "ZooKeeper down "
                      + b.zooKeeperDown().toSeconds()
                      + " s (block "
                      + b.index()
                      + "): one trigger and one retry leader again after it returned",
                  led,
                  led
                      ? "leaders after " + Duration.between(back, Instant.now()).toSeconds() + " s"
                      : "no single leader of each within " + RECOVER_WITHIN));
        });
  }

  /**
   * Kafka stopped for the block's outage while the burst tasks fire; the triggers' dispatch metrics
   * and memory are sampled every {@link #SAMPLE_EVERY} until the alert metric fell back after
   * Kafka's return (or {@link #FALL_BACK_MAX}), then recorded for {@link LongOutages#kafkaOutage}.
   */
  private void stopKafka(
      Services services,
      StackProcess stack,
      ScheduledExecutorService scheduler,
      LongOutages.Block b) {
    KafkaSampler sampler = new KafkaSampler(services, b);
    sampler.sample();
    stack.command("stop-kafka");
    faults.add(
        FaultLog.Kind.KAFKA_DOWN,
        "kafka",
        "down for "
            + b.kafkaDown()
            + ", burst of "
            + LongOutages.FIRES_PER_SECOND
            + " fires/s from "
            + b.burstFrom()
            + " to "
            + b.burstUntil());
    at(
        scheduler,
        b.kafkaDown().toMillis(),
        () -> {
          stack.command("start-kafka");
          sampler.kafkaUp(Instant.now());
          faults.add(FaultLog.Kind.KAFKA_STARTED, "kafka", "same port, same data");
        });
    sampleUntilDone(scheduler, sampler);
  }

  private void sampleUntilDone(ScheduledExecutorService scheduler, KafkaSampler sampler) {
    at(
        scheduler,
        SAMPLE_EVERY.toMillis(),
        () -> {
          sampler.sample();
          if (sampler.done()) {
            kafkaOutages.add(sampler.result(burstRate(sampler.block)));
          } else {
            sampleUntilDone(scheduler, sampler);
          }
        });
  }

  /** Burst windows with a fire time inside the Kafka outage, per second of it. */
  private double burstRate(LongOutages.Block b) throws SQLException {
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT count(*) FROM task_instance WHERE task_id LIKE ? AND scheduled_at >= ?"
                    + " AND scheduled_at < ?")) {
      st.setString(1, LongOutages.BURST_PREFIX + "%");
      st.setTimestamp(2, Timestamp.from(b.kafkaDownAt()));
      st.setTimestamp(3, Timestamp.from(b.kafkaUpAt()));
      return single(st) / (double) b.kafkaDown().toSeconds();
    }
  }

  /** The triggers' dispatch metrics and memory around one long Kafka outage. */
  private static final class KafkaSampler {
    private final Services services;
    private final LongOutages.Block block;
    private final Map<String, Double> deferredAtStart = new HashMap<>();
    private double deferred;
    private double backlogPeak;
    private double agePeak;
    private int samples;
    private volatile Instant kafkaUp;
    private Duration fellBackAfter;

    KafkaSampler(Services services, LongOutages.Block block) {
      this.services = services;
      this.block = block;
    }

    void kafkaUp(Instant at) {
      kafkaUp = at;
    }

    synchronized void sample() {
      double age = 0;
      for (Service s : services.of(Role.TRIGGER)) {
        Optional<String> text = s.process().isAlive() ? services.metrics(s) : Optional.empty();
        if (text.isEmpty()) {
          continue;
        }
        samples++;
        backlogPeak =
            Math.max(
                backlogPeak, Services.metric(text.get(), "carillon_trigger_dispatch_backlog", ""));
        age =
            Math.max(age, Services.metric(text.get(), "carillon_trigger_dispatch_oldest_age", ""));
        double d =
            Services.metric(text.get(), "carillon_trigger_publish_total", "result=\"deferred\"");
        double d0 = deferredAtStart.computeIfAbsent(s.name(), k -> d);
        deferred = Math.max(deferred, d - d0);
      }
      agePeak = Math.max(agePeak, age);
      Instant up = kafkaUp;
      if (up != null && fellBackAfter == null && age < LongOutages.AGE_FELL_BACK) {
        fellBackAfter = Duration.between(up, Instant.now());
      }
    }

    synchronized boolean done() {
      Instant up = kafkaUp;
      return up != null && (fellBackAfter != null || Instant.now().isAfter(up.plus(FALL_BACK_MAX)));
    }

    synchronized LongOutages.KafkaOutage result(double firesPerSecond) {
      long hwm =
          services.of(Role.TRIGGER).stream()
              .filter(s -> s.process().isAlive())
              .mapToLong(s -> Services.vmHwmKb(s.pid()).orElse(0L))
              .max()
              .orElse(0);
      return new LongOutages.KafkaOutage(
          block.index(),
          block.kafkaDown(),
          firesPerSecond,
          backlogPeak,
          DISPATCH_BACKLOG_BOUND,
          deferred,
          agePeak,
          fellBackAfter,
          hwm,
          samples);
    }
  }

  /**
   * Until every live service answers ready; how long that took, or null after {@link
   * #RECOVER_WITHIN}.
   */
  private static Duration awaitAllReady(Services services) {
    Instant from = Instant.now();
    try {
      await("every service ready again")
          .atMost(RECOVER_WITHIN)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () ->
                  services.all().stream()
                      .filter(s -> s.process().isAlive())
                      .allMatch(
                          s ->
                              services
                                  .health(s)
                                  .map(h -> "UP".equals(h.path("status").asText()))
                                  .orElse(false)));
      return Duration.between(from, Instant.now());
    } catch (ConditionTimeoutException e) {
      return null;
    }
  }

  /** Applies {@code tasks} with {@code schedctl apply}, through a task file at {@code file}. */
  private void apply(Path file, List<Workload.TaskSpec> tasks) throws java.io.IOException {
    Files.writeString(file, Workload.yaml(tasks));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int applied =
        new Schedctl()
            .run(
                new String[] {"apply", "-f", file.toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8),
                schedctlEnv());
    assertThat(applied).as("schedctl apply %s: %s", file.getFileName(), err).isZero();
  }

  /**
   * Cuts the leader of the partition's role from its server for {@link #PARTITION_FOR}: the trigger
   * leader from ZooKeeper (it keeps PostgreSQL, and must stop leading), the retry leader from
   * Kafka.
   */
  private void partitionLeader(
      Services services, ScheduledExecutorService scheduler, FaultLog.Kind kind)
      throws SQLException {
    Role role = kind == FaultLog.Kind.PARTITION_TRIGGER_ZK ? Role.TRIGGER : Role.RETRY;
    Service leader = awaitLeader(services, role);
    cut(services, scheduler, leader, kind);
  }

  /**
   * Cuts the running worker (not frozen, not cut already) that holds the most leases from
   * PostgreSQL or Kafka for {@link #PARTITION_FOR}. Cut from PostgreSQL it cannot renew its leases,
   * so it is checked like a frozen one: nothing written for the attempts it lost after the heal.
   */
  private void partitionWorker(
      Services services, ScheduledExecutorService scheduler, FaultLog.Kind kind)
      throws SQLException {
    cut(services, scheduler, busiestWorker(services), kind);
  }

  private void cut(
      Services services, ScheduledExecutorService scheduler, Service victim, FaultLog.Kind kind)
      throws SQLException {
    NetworkNamespaces.Host host = services.host(victim).orElseThrow();
    int port =
        switch (kind) {
          case PARTITION_TRIGGER_ZK -> endpoints.zooKeeperPort();
          case PARTITION_WORKER_PG -> endpoints.postgresPort();
          default -> endpoints.kafkaPort();
        };
    String server =
        switch (kind) {
          case PARTITION_TRIGGER_ZK -> "ZooKeeper";
          case PARTITION_WORKER_PG -> "PostgreSQL";
          default -> "Kafka";
        };
    Set<String> leases =
        kind == FaultLog.Kind.PARTITION_WORKER_PG ? leasesOf(victim.name()) : Set.of();
    // Kept out of the kills and freezes until healed, so that every repeat has one cause.
    frozen.add(victim.name());
    lab.cut(host, port);
    Instant cutAt = Instant.now();
    faults.add(
        kind,
        victim.name(),
        "from "
            + server
            + " (port "
            + port
            + ") for "
            + PARTITION_FOR
            + (kind == FaultLog.Kind.PARTITION_WORKER_PG
                ? ", " + leases.size() + " leases held"
                : ""));
    at(
        scheduler,
        PARTITION_FOR.toMillis(),
        () -> {
          lab.heal(host, port);
          frozen.remove(victim.name());
          faults.add(FaultLog.Kind.HEAL_PARTITION, victim.name(), server + " reachable again");
          if (kind == FaultLog.Kind.PARTITION_WORKER_PG) {
            zombies.add(
                new Invariants.Zombie(
                    victim.name(), cutAt, Instant.now(), leases, "cut from PostgreSQL"));
          }
        });
  }

  /** The running worker, not frozen or cut, that holds the most leases now. */
  private Service busiestWorker(Services services) throws SQLException {
    Map<String, Integer> held = new HashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT worker_id, count(*) FROM task_instance WHERE status = 'RUNNING'"
                    + " GROUP BY worker_id")) {
      while (rs.next()) {
        held.put(rs.getString(1), rs.getInt(2));
      }
    }
    return services.of(Role.WORKER).stream()
        .filter(s -> s.process().isAlive() && !frozen.contains(s.name()))
        .max(Comparator.comparingInt(s -> held.getOrDefault(s.name(), 0)))
        .orElseThrow(() -> new IllegalStateException("no running worker to cut"));
  }

  /** The leases ("instance#attempt") {@code worker} holds now. */
  private Set<String> leasesOf(String worker) throws SQLException {
    Set<String> held = new HashSet<>();
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT id, attempt FROM task_instance WHERE status = 'RUNNING' AND worker_id = ?")) {
      st.setString(1, worker);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          held.add(rs.getLong(1) + "#" + rs.getInt(2));
        }
      }
    }
    return held;
  }

  private static long fraction(Duration d, double f) {
    return (long) (d.toMillis() * f);
  }

  private void at(ScheduledExecutorService scheduler, long delayMs, ThrowingRunnable action) {
    scheduler.schedule(
        () -> {
          try {
            action.run();
          } catch (Exception e) {
            harnessErrors.add(Instant.now() + " " + e);
          }
        },
        Math.max(0, delayMs),
        TimeUnit.MILLISECONDS);
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private void killRandomWorker(
      Services services, ScheduledExecutorService scheduler, Random random) {
    List<Service> candidates =
        services.of(Role.WORKER).stream()
            .filter(s -> s.process().isAlive() && !frozen.contains(s.name()))
            .toList();
    if (candidates.isEmpty()) {
      return;
    }
    Service victim = candidates.get(random.nextInt(candidates.size()));
    services.kill9(victim);
    faults.add(FaultLog.Kind.KILL_WORKER, victim.name(), "pid " + victim.pid());
    at(
        scheduler,
        RESTART_PAUSE.toMillis(),
        () -> {
          services.start(victim.name(), Role.WORKER);
          faults.add(FaultLog.Kind.RESTART_WORKER, victim.name(), "after " + RESTART_PAUSE);
        });
  }

  private void killLeader(Services services, ScheduledExecutorService scheduler, Role role) {
    Service leader = awaitLeader(services, role);
    services.kill9(leader);
    faults.add(
        role == Role.TRIGGER ? FaultLog.Kind.KILL_TRIGGER_LEADER : FaultLog.Kind.KILL_RETRY_LEADER,
        leader.name(),
        "pid " + leader.pid());
    at(
        scheduler,
        RESTART_PAUSE.toMillis(),
        () -> {
          services.start(leader.name(), role);
          faults.add(FaultLog.Kind.RESTART_SERVICE, leader.name(), "after " + RESTART_PAUSE);
        });
  }

  /**
   * The single leader of {@code role}, waited for: an earlier fault (a kill, a partition from
   * ZooKeeper) may have left the role between leaders for a few seconds.
   */
  private static Service awaitLeader(Services services, Role role) {
    return await("a single " + role + " leader")
        .atMost(LEADER_WAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> services.leader(role), Optional::isPresent)
        .orElseThrow();
  }

  /**
   * SIGSTOP of the trigger leader for {@link #LEADER_FREEZE_FOR} (past its ZooKeeper session of 4
   * s), then SIGCONT. The epoch and the events it wrote are read at the freeze, just before SIGCONT
   * and {@link #LEADER_WATCH} after it, for {@link Invariants#frozenLeader}: once resumed it must
   * write nothing (the successor's epoch fences it).
   */
  private void freezeLeader(Services services, ScheduledExecutorService scheduler)
      throws SQLException {
    Service leader = awaitLeader(services, Role.TRIGGER);
    // A standby in the election (connected to ZooKeeper, its latch node queued) takes over while
    // the leader is stopped. Answering health is not enough: a standby just healed from a
    // ZooKeeper partition answers at once but was seen to rejoin only 9 s later, and then the
    // successor's term came after the freeze's limit.
    await("a trigger standby in the election beside " + leader.name())
        .atMost(LEADER_WAIT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                services.of(Role.TRIGGER).stream()
                    .filter(s -> !s.name().equals(leader.name()))
                    .anyMatch(
                        s ->
                            s.process().isAlive()
                                && services
                                    .health(s)
                                    .map(h -> h.path("inElection").asBoolean(false))
                                    .orElse(false)));
    long epochAtFreeze = triggerEpoch();
    services.freeze(leader);
    Instant frozenAt = Instant.now();
    faults.add(
        FaultLog.Kind.FREEZE_TRIGGER_LEADER,
        leader.name(),
        "for " + LEADER_FREEZE_FOR + " at epoch " + epochAtFreeze);
    resumeLeaderOnceSucceeded(services, scheduler, leader, frozenAt, epochAtFreeze);
  }

  /**
   * SIGCONT to the frozen {@code leader} once it has been stopped {@link #LEADER_FREEZE_FOR} and a
   * successor has taken a newer epoch (polled every 500 ms), or at {@link #LEADER_FREEZE_MAX}
   * without one (then the invariant reports that the freeze proved nothing).
   */
  private void resumeLeaderOnceSucceeded(
      Services services,
      ScheduledExecutorService scheduler,
      Service leader,
      Instant frozenAt,
      long epochAtFreeze) {
    long due =
        Math.max(500, Duration.between(Instant.now(), frozenAt.plus(LEADER_FREEZE_FOR)).toMillis());
    at(
        scheduler,
        due,
        () -> {
          long epochAtResume = triggerEpoch();
          boolean succeeded = epochAtResume > epochAtFreeze;
          if (!succeeded && Instant.now().isBefore(frozenAt.plus(LEADER_FREEZE_MAX))) {
            resumeLeaderOnceSucceeded(services, scheduler, leader, frozenAt, epochAtFreeze);
            return;
          }
          long writesAtResume = eventsBy(leader.name());
          services.resume(leader);
          Instant resumedAt = Instant.now();
          faults.add(FaultLog.Kind.RESUME_LEADER, leader.name(), "SIGCONT");
          at(
              scheduler,
              LEADER_WATCH.toMillis(),
              () ->
                  frozenLeaders.add(
                      new Invariants.FrozenLeader(
                          leader.name(),
                          frozenAt,
                          resumedAt,
                          epochAtFreeze,
                          epochAtResume,
                          triggerEpoch(),
                          writesAtResume,
                          eventsBy(leader.name()),
                          LEADER_WATCH)));
        });
  }

  private long triggerEpoch() throws SQLException {
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement(
                "SELECT coalesce(max(epoch), 0) FROM leader_epoch WHERE service = ?")) {
      st.setString(1, "trigger");
      return single(st);
    }
  }

  private long eventsBy(String trigger) throws SQLException {
    try (Connection c = connect();
        PreparedStatement st =
            c.prepareStatement("SELECT count(*) FROM instance_event WHERE actor = ?")) {
      st.setString(1, "trigger:" + trigger);
      return single(st);
    }
  }

  /**
   * SIGKILL to PostgreSQL's postmaster (the stack runs with synchronous_commit on, so nothing
   * acknowledged may be lost), started again through crash recovery after {@link #RESTART_PAUSE}.
   */
  private void crashPostgres(StackProcess stack, ScheduledExecutorService scheduler) {
    stack.command("kill-postgres");
    faults.add(
        FaultLog.Kind.POSTGRES_CRASH,
        "postgres",
        "SIGKILL to the postmaster, synchronous_commit on, down for " + RESTART_PAUSE);
    at(
        scheduler,
        RESTART_PAUSE.toMillis(),
        () -> {
          stack.command("start-postgres");
          faults.add(FaultLog.Kind.POSTGRES_STARTED, "postgres", "after crash recovery");
        });
  }

  private static List<String> stackOptions(NetworkNamespaces lab) {
    List<String> options = new ArrayList<>(List.of("--synchronous-commit"));
    if (lab != null) {
      options.addAll(List.of("--listen-address", lab.serverAddress()));
    }
    return options;
  }

  private void restartKafka(StackProcess stack, ScheduledExecutorService scheduler) {
    stack.command("stop-kafka");
    faults.add(FaultLog.Kind.KAFKA_RESTART, "kafka", "broker down for " + RESTART_PAUSE);
    at(scheduler, RESTART_PAUSE.toMillis(), () -> stack.command("start-kafka"));
  }

  /**
   * SIGSTOP of the worker holding the most leases, resumed after {@link #FREEZE_FOR} (longer than
   * the lease): its leases expire, others re-run the work, and the resumed zombie must write
   * nothing for the attempts it lost.
   */
  private void freezeBusiestWorker(Services services, ScheduledExecutorService scheduler)
      throws SQLException {
    Map<String, Set<String>> held = new HashMap<>();
    try (Connection c = connect();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT worker_id, id, attempt FROM task_instance WHERE status = 'RUNNING'")) {
      while (rs.next()) {
        held.computeIfAbsent(rs.getString(1), k -> new HashSet<>())
            .add(rs.getLong(2) + "#" + rs.getInt(3));
      }
    }
    Service victim =
        services.of(Role.WORKER).stream()
            .filter(s -> s.process().isAlive() && !frozen.contains(s.name()))
            .max(
                (a, b) ->
                    held.getOrDefault(a.name(), Set.of()).size()
                        - held.getOrDefault(b.name(), Set.of()).size())
            .orElseThrow();
    services.freeze(victim);
    frozen.add(victim.name());
    Instant frozenAt = Instant.now();
    Set<String> leases = held.getOrDefault(victim.name(), Set.of());
    faults.add(
        FaultLog.Kind.FREEZE_WORKER,
        victim.name(),
        leases.size() + " leases held, for " + FREEZE_FOR);
    at(
        scheduler,
        FREEZE_FOR.toMillis(),
        () -> {
          services.resume(victim);
          frozen.remove(victim.name());
          faults.add(FaultLog.Kind.RESUME_WORKER, victim.name(), "SIGCONT");
          zombies.add(
              new Invariants.Zombie(victim.name(), frozenAt, Instant.now(), leases, "frozen"));
        });
  }

  /** Restarts every service that exited with {@link #GIVE_UP_EXIT} by itself. */
  private void restartGivenUp(Services services) {
    try {
      for (Service s : services.all()) {
        if (!s.process().isAlive() && s.process().exitValue() == GIVE_UP_EXIT) {
          services.start(s.name(), s.role());
          faults.add(
              FaultLog.Kind.RESTART_SERVICE,
              s.name(),
              "it gave up (exit " + GIVE_UP_EXIT + "); restarted as an orchestrator would");
        }
      }
    } catch (RuntimeException e) {
      harnessErrors.add(Instant.now() + " " + e);
    }
  }

  /** After the schedule: every service runs again (a restart may have been cancelled). */
  private void recoverAll(Services services) {
    for (Service s : services.all()) {
      if (frozen.remove(s.name())) {
        services.resume(s);
      }
      if (!s.process().isAlive()) {
        services.start(s.name(), s.role());
        faults.add(FaultLog.Kind.RESTART_SERVICE, s.name(), "at the end of the schedule");
      }
    }
  }

  /**
   * Waits (bounded) until the trigger has evaluated {@code tasks} (the regular ones: a burst task's
   * cursor stays at its last fire) up to the end of the run and every instance of it has finished;
   * with {@code drained}, also until nothing is overdue (see {@link #overdue}). A timeout here is
   * not a failure by itself: the invariants then report what is stuck.
   */
  private void settle(
      List<Workload.TaskSpec> tasks, Instant end, Duration within, boolean drained) {
    try {
      await("the trigger evaluated every task up to " + end + " and every instance finished")
          .atMost(within)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                try (Connection c = connect();
                    PreparedStatement cursors =
                        c.prepareStatement(
                            "SELECT count(*) FROM trigger_cursor WHERE task_id LIKE 'f-%' AND"
                                + " task_id NOT LIKE 'f-burst-%' AND evaluated_until >= ?");
                    PreparedStatement open =
                        c.prepareStatement(
                            "SELECT count(*) FROM task_instance WHERE task_id LIKE 'f-%' AND"
                                + " scheduled_at <= ? AND status IN ('PENDING', 'RUNNING',"
                                + " 'RETRY_WAIT', 'FAILED', 'TIMEOUT')")) {
                  cursors.setTimestamp(1, Timestamp.from(end));
                  open.setTimestamp(1, Timestamp.from(end));
                  return single(cursors) == tasks.size()
                      && single(open) == 0
                      && (!drained || overdue(c) == 0);
                }
              });
    } catch (ConditionTimeoutException e) {
      harnessErrors.add("did not settle within " + within + " (see the invariants)");
    }
  }

  /**
   * Instances (of any fire time) unfinished past their lease or due time plus {@link #GRACE}, as
   * the invariant counts them: after a long outage the windows that fired after the run's end wait
   * behind the backlog, and the checks come once it has drained.
   */
  private static long overdue(Connection c) throws SQLException {
    try (PreparedStatement st =
        c.prepareStatement(
            "SELECT count(*) FROM task_instance WHERE task_id LIKE 'f-%' AND ("
                + " status = 'RUNNING' AND lease_until < now() - ? * interval '1 second'"
                + " OR status = 'RETRY_WAIT' AND next_attempt_at < now() - ? * interval '1 second'"
                + " OR status IN ('PENDING', 'FAILED', 'TIMEOUT')"
                + " AND updated_at < now() - ? * interval '1 second')")) {
      for (int i = 1; i <= 3; i++) {
        st.setLong(i, GRACE.toSeconds());
      }
      return single(st);
    }
  }

  private static long single(PreparedStatement st) throws SQLException {
    try (ResultSet rs = st.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private Connection connect() {
    try {
      return DriverManager.getConnection(
          endpoints.dbUrl(), endpoints.dbUser(), endpoints.dbPassword());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot reach PostgreSQL: " + e.getMessage(), e);
    }
  }

  private Map<String, String> schedctlEnv() {
    return Map.of(
        "CARILLON_DB_URL", endpoints.dbUrl(),
        "CARILLON_DB_USER", endpoints.dbUser(),
        "CARILLON_DB_PASSWORD", endpoints.dbPassword(),
        "CARILLON_KAFKA_BOOTSTRAP", endpoints.kafka(),
        "USER", "faults");
  }
}
