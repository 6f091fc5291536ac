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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The fault-injection suite (issue 7): PostgreSQL, Kafka and ZooKeeper in one child process, two
 * triggers, three workers and two retry services as separate processes, 50 tasks firing every 2-3
 * seconds, and a fault schedule of kill -9, SIGSTOP/SIGCONT and server restarts. At the end the
 * invariants are computed from the database and printed with the fault tally; then the bad-input
 * cases run against the same live system.
 *
 * <p>{@code -Dfaults.duration} sets the workload length (default 100s in the README's test command;
 * {@code faults/run-full.sh} runs 5m). Logs and the summary land in {@code
 * faults/target/run-<timestamp>/}.
 */
@Tag("faults")
class FaultSuiteIT {
  private static final Duration RESTART_PAUSE = Duration.ofSeconds(5);
  private static final Duration WORKER_KILL_EVERY = Duration.ofSeconds(20);
  private static final Duration FREEZE_FOR = Workload.TASK_TIMEOUT.plusSeconds(8);
  private static final Duration GRACE = Duration.ofSeconds(30);
  private static final Duration SETTLE = Duration.ofSeconds(90);

  private final FaultLog faults = new FaultLog();
  private final List<String> harnessErrors = Collections.synchronizedList(new ArrayList<>());
  private final List<Invariants.Zombie> zombies = Collections.synchronizedList(new ArrayList<>());
  private final Set<String> frozen = Collections.synchronizedSet(new HashSet<>());
  private StackProcess.Endpoints endpoints;

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
    long seed = Long.getLong("faults.seed", System.currentTimeMillis());
    Random random = new Random(seed);

    try (StackProcess stack =
            StackProcess.start(
                Files.createDirectories(runDir.resolve("stack")), runDir.resolve("devstack.log"));
        Services services = new Services(root, runDir, pluginDir, stack.endpoints())) {
      endpoints = stack.endpoints();
      for (String name : List.of("trigger-1", "trigger-2")) {
        services.start(name, Role.TRIGGER);
      }
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
        // Created after the services migrated the schema (Flyway refuses a non-empty schema
        // without its history table). The ledger (see LedgerAgent): deliberately not unique on
        // (task, window, attempt), so a
        // repeated execution shows up as a second row instead of being refused.
        st.execute(
            "CREATE TABLE IF NOT EXISTS ledger (id BIGSERIAL PRIMARY KEY, task_id VARCHAR(64) NOT"
                + " NULL, window_key VARCHAR(64) NOT NULL, attempt INT NOT NULL, worker_id"
                + " VARCHAR(128) NOT NULL, started_at TIMESTAMPTZ NOT NULL)");
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
      List<Workload.TaskSpec> tasks = Workload.tasks(random);
      Path taskFile = runDir.resolve("workload.yaml");
      Files.writeString(taskFile, Workload.yaml(tasks));
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int applied =
          new Schedctl()
              .run(
                  new String[] {"apply", "-f", taskFile.toString()},
                  new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                  new PrintStream(err, true, StandardCharsets.UTF_8),
                  schedctlEnv());
      assertThat(applied).as("schedctl apply: %s", err).isZero();

      // The run's windows are the fire times in [start, end]; start leaves the trigger a few
      // seconds to pick the new tasks up.
      Instant start = Instant.now().plusSeconds(5).truncatedTo(ChronoUnit.SECONDS);
      Instant end = start.plus(duration);
      ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
      scheduleFaults(scheduler, services, stack, random, start, duration);
      await("the workload runs until " + end)
          .atMost(duration.plusMinutes(2))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> Instant.now().isAfter(end.plus(FREEZE_FOR).plusSeconds(2)));
      scheduler.shutdownNow();
      scheduler.awaitTermination(2, TimeUnit.MINUTES);
      recoverAll(services);

      settle(tasks, end);
      Invariants.Report report;
      try (Connection c = connect()) {
        report = Invariants.check(c, tasks, start, end, faults, zombies, GRACE);
      }

      List<BadInputs.Outcome> bad =
          new BadInputs(runDir, schedctlEnv(), this::connect, services, endpoints.kafka()).runAll();

      String summary =
          Summary.render(
              duration,
              seed,
              faults,
              report,
              bad,
              harnessErrors,
              Duration.ofNanos(System.nanoTime() - t0));
      System.out.println(summary);
      Files.writeString(runDir.resolve("summary.txt"), summary);

      assertThat(harnessErrors).as("harness errors").isEmpty();
      assertThat(report.checks())
          .allSatisfy(c -> assertThat(c.ok()).as(c.name() + ": " + c.detail()).isTrue());
      assertThat(bad)
          .allSatisfy(b -> assertThat(b.ok()).as(b.input() + ": " + b.observed()).isTrue());
      for (FaultLog.Kind k :
          List.of(
              FaultLog.Kind.KILL_WORKER,
              FaultLog.Kind.KILL_TRIGGER_LEADER,
              FaultLog.Kind.KILL_RETRY_LEADER,
              FaultLog.Kind.FREEZE_WORKER,
              FaultLog.Kind.KAFKA_RESTART,
              FaultLog.Kind.POSTGRES_RESTART)) {
        assertThat(faults.faultCounts()).as("faults injected").containsKey(k);
      }
      assertThat(services.all())
          .allSatisfy(
              s ->
                  assertThat(s.process().isAlive())
                      .as(s.name() + " alive (services must reconnect, not die)")
                      .isTrue());
    }
  }

  /** The fault schedule, relative to the start of the run. */
  private void scheduleFaults(
      ScheduledExecutorService scheduler,
      Services services,
      StackProcess stack,
      Random random,
      Instant start,
      Duration d) {
    long base = Duration.between(Instant.now(), start).toMillis();
    at(scheduler, base + fraction(d, 0.08), () -> freezeBusiestWorker(services, scheduler));
    for (long t = 15_000; t < d.toMillis() - 5_000; t += WORKER_KILL_EVERY.toMillis()) {
      at(scheduler, base + t, () -> killRandomWorker(services, scheduler, random));
    }
    at(scheduler, base + fraction(d, 0.25), () -> killLeader(services, scheduler, Role.TRIGGER));
    at(scheduler, base + fraction(d, 0.45), () -> killLeader(services, scheduler, Role.RETRY));
    at(scheduler, base + fraction(d, 0.55), () -> restartKafka(stack, scheduler));
    at(scheduler, base + fraction(d, 0.65), () -> killLeader(services, scheduler, Role.TRIGGER));
    at(
        scheduler,
        base + fraction(d, 0.78),
        () -> {
          stack.command("restart-postgres");
          faults.add(FaultLog.Kind.POSTGRES_RESTART, "postgres", "same port, same data");
        });
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
    Service leader =
        services
            .leader(role)
            .orElseThrow(() -> new IllegalStateException("no single " + role + " leader to kill"));
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
            .filter(s -> s.process().isAlive())
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
          zombies.add(new Invariants.Zombie(victim.name(), frozenAt, Instant.now(), leases));
        });
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
   * Waits (bounded) until the trigger has evaluated the whole run and every instance of it has
   * finished. A timeout here is not a failure by itself: the invariants then report what is stuck.
   */
  private void settle(List<Workload.TaskSpec> tasks, Instant end) {
    try {
      await("the trigger evaluated every task up to " + end + " and every instance finished")
          .atMost(SETTLE)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                try (Connection c = connect();
                    PreparedStatement cursors =
                        c.prepareStatement(
                            "SELECT count(*) FROM trigger_cursor WHERE task_id LIKE 'f-%' AND"
                                + " evaluated_until >= ?");
                    PreparedStatement open =
                        c.prepareStatement(
                            "SELECT count(*) FROM task_instance WHERE task_id LIKE 'f-%' AND"
                                + " scheduled_at <= ? AND status IN ('PENDING', 'RUNNING',"
                                + " 'RETRY_WAIT', 'FAILED', 'TIMEOUT')")) {
                  cursors.setTimestamp(1, Timestamp.from(end));
                  open.setTimestamp(1, Timestamp.from(end));
                  return single(cursors) == tasks.size() && single(open) == 0;
                }
              });
    } catch (ConditionTimeoutException e) {
      harnessErrors.add("did not settle within " + SETTLE + " (see the invariants)");
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
