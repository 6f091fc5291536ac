package dev.carillon.faults;

import dev.carillon.model.schedule.CronSchedule;
import dev.carillon.model.schedule.WindowKind;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The suite's invariants, computed from the database alone (instances, their event history and the
 * ledger of real executions) plus the fault log. Each check reports the offending rows, so a
 * failure explains itself.
 */
final class Invariants {
  /** One invariant's outcome. */
  record Check(String name, boolean ok, String detail) {}

  /** A run of a window that happened again because an earlier attempt lost its lease. */
  record Reexecution(String window, int lostAttempt, String worker, String cause) {}

  /** Everything the summary prints. */
  record Report(
      int windowsExpected,
      int windowsCreated,
      int succeeded,
      int dead,
      int skipped,
      int ledgerRuns,
      List<Reexecution> reexecutions,
      Effects effects,
      List<Check> checks) {
    boolean ok() {
      return checks.stream().allMatch(Check::ok);
    }

    /** This report with {@code more} checks after its own. */
    Report plus(List<Check> more) {
      List<Check> all = new ArrayList<>(checks);
      all.addAll(more);
      return new Report(
          windowsExpected,
          windowsCreated,
          succeeded,
          dead,
          skipped,
          ledgerRuns,
          reexecutions,
          effects,
          List.copyOf(all));
    }
  }

  /**
   * A zombie: a worker that could not renew its leases for longer than a lease (frozen, or cut from
   * PostgreSQL), the leases it held then, and how it was kept away ({@code "frozen"}, {@code "cut
   * from PostgreSQL"}).
   */
  record Zombie(
      String worker, Instant frozenAt, Instant resumedAt, Set<String> heldLeases, String how) {}

  record Row(
      long id,
      String taskId,
      String windowKey,
      String status,
      int attempt,
      int retryCount,
      int maxRetry,
      boolean nonRetryable,
      Instant scheduledAt,
      Instant leaseUntil,
      Instant nextAttemptAt,
      Instant updatedAt) {}

  record Event(
      long id,
      long instanceId,
      String kind,
      String from,
      String to,
      Integer attempt,
      String actor,
      Instant at,
      String reason) {}

  /**
   * One execution in the ledger: {@code startedAt} is the attempt's start by the worker's clock
   * ({@code AgentContext.startedAt}), {@code insertedAt} when its row reached the database, by the
   * database's clock: the handler's first write, so no earlier than its start.
   */
  record LedgerRow(
      String taskId,
      String windowKey,
      int attempt,
      String worker,
      Instant startedAt,
      Instant insertedAt) {

    /** A row inserted at its start (the tests' worlds). */
    LedgerRow(String taskId, String windowKey, int attempt, String worker, Instant startedAt) {
      this(taskId, windowKey, attempt, worker, startedAt, startedAt);
    }
  }

  /** One call of a window's effect, as the effect table saw it. */
  record EffectCallRow(
      String window, int attempt, String worker, boolean inDoubt, boolean applied, Instant at) {}

  /** One attempt's start (and done record, if written) of an effect, as the scheduler kept it. */
  record EffectRecordRow(
      String window, int attempt, String worker, Instant startedAt, Instant doneAt) {}

  /**
   * The effect counts the summary prints.
   *
   * @param windows windows whose effect was applied
   * @param calls calls of the effect, applied or not
   * @param repeated calls after a window's first: the gap or a zombie, each dropped by the key
   */
  record Effects(int windows, int calls, int repeated) {}

  /** The effect counts and checks. */
  record EffectVerdict(Effects effects, List<Check> checks) {}

  private static final Set<String> UNFINISHED = Set.of("PENDING", "RUNNING", "RETRY_WAIT");

  private Invariants() {}

  /**
   * Everything the invariants read from the database, loaded once so that {@link #verdict} is pure
   * and a test can doctor any part of it.
   */
  record Observed(
      List<LedgerRow> ledger,
      List<Row> rows,
      List<Event> events,
      List<EffectCallRow> calls,
      List<EffectRecordRow> effectRecords,
      List<CheckpointRow> checkpoints,
      Instant dbNow) {}

  /** One saved checkpoint of an attempt. */
  record CheckpointRow(long instanceId, int attempt, String worker, Instant savedAt) {}

  static Report check(
      Connection c,
      List<Workload.TaskSpec> tasks,
      Instant from,
      Instant upTo,
      FaultLog faults,
      List<Zombie> zombies,
      Duration grace)
      throws SQLException {
    return verdict(load(c), tasks, from, upTo, faults, zombies, grace);
  }

  /**
   * Reads the suite's tasks' rows, events, ledger, effects and checkpoints, and the database's
   * time, all in one REPEATABLE READ snapshot: every read sees the same committed state, whatever
   * the services do meanwhile. Read one after the other as separate snapshots, a window that
   * succeeded between the ledger's read and the rows' read had a SUCCESS without a ledger row (153
   * such in a full run whose backlog was still draining at the checks), and a row that finished
   * after the time was read looked stuck.
   */
  static Observed load(Connection c) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    int isolation = c.getTransactionIsolation();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try {
      return read(c);
    } finally {
      c.rollback();
      c.setTransactionIsolation(isolation);
      c.setAutoCommit(autoCommit);
    }
  }

  private static Observed read(Connection c) throws SQLException {
    // now() is the snapshot's start: every row below is judged against the instant it was read at.
    Instant dbNow;
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT now()")) {
      rs.next();
      dbNow = rs.getTimestamp(1).toInstant();
    }
    List<LedgerRow> ledger = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT task_id, window_key, attempt, worker_id, started_at, inserted_at FROM"
                    + " ledger WHERE task_id LIKE 'f-%' ORDER BY started_at")) {
      while (rs.next()) {
        ledger.add(
            new LedgerRow(
                rs.getString(1),
                rs.getString(2),
                rs.getInt(3),
                rs.getString(4),
                rs.getTimestamp(5).toInstant(),
                rs.getTimestamp(6).toInstant()));
      }
    }
    List<Row> rows = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, task_id, window_key, status, attempt, retry_count, max_retry,"
                    + " non_retryable, scheduled_at, lease_until, next_attempt_at, updated_at"
                    + " FROM task_instance WHERE task_id LIKE 'f-%'")) {
      while (rs.next()) {
        rows.add(
            new Row(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getInt(5),
                rs.getInt(6),
                rs.getInt(7),
                rs.getBoolean(8),
                rs.getTimestamp(9).toInstant(),
                instant(rs.getTimestamp(10)),
                instant(rs.getTimestamp(11)),
                instant(rs.getTimestamp(12))));
      }
    }
    List<Event> events = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT id, instance_id, kind, from_status, to_status, attempt, actor, created_at,"
                    + " reason FROM instance_event WHERE task_id LIKE 'f-%' AND instance_id IS"
                    + " NOT NULL ORDER BY id")) {
      while (rs.next()) {
        events.add(
            new Event(
                rs.getLong(1),
                rs.getLong(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                (Integer) rs.getObject(6),
                rs.getString(7),
                rs.getTimestamp(8).toInstant(),
                rs.getString(9)));
      }
    }
    List<EffectCallRow> calls = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT task_id, window_key, attempt, worker_id, in_doubt, applied, at FROM"
                    + " ledger_effect WHERE task_id LIKE 'f-%' ORDER BY at, id")) {
      while (rs.next()) {
        calls.add(
            new EffectCallRow(
                rs.getString(1) + "/" + rs.getString(2),
                rs.getInt(3),
                rs.getString(4),
                rs.getBoolean(5),
                rs.getBoolean(6),
                rs.getTimestamp(7).toInstant()));
      }
    }
    List<EffectRecordRow> effectRecords = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT i.task_id, i.window_key, e.attempt, e.worker_id, e.started_at, e.done_at"
                    + " FROM instance_effect e JOIN task_instance i ON i.id = e.instance_id"
                    + " WHERE i.task_id LIKE 'f-%'")) {
      while (rs.next()) {
        effectRecords.add(
            new EffectRecordRow(
                rs.getString(1) + "/" + rs.getString(2),
                rs.getInt(3),
                rs.getString(4),
                rs.getTimestamp(5).toInstant(),
                instant(rs.getTimestamp(6))));
      }
    }
    List<CheckpointRow> checkpoints = new ArrayList<>();
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT k.instance_id, k.attempt, k.worker_id, k.saved_at FROM instance_checkpoint"
                    + " k JOIN task_instance i ON i.id = k.instance_id WHERE i.task_id LIKE"
                    + " 'f-%'")) {
      while (rs.next()) {
        checkpoints.add(
            new CheckpointRow(
                rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getTimestamp(4).toInstant()));
      }
    }
    return new Observed(ledger, rows, events, calls, effectRecords, checkpoints, dbNow);
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  /**
   * The invariants over what {@link #load} read. Pure: no IO, no clock. Every check also requires
   * that it saw input (a check over nothing fails, naming what it missed), so that no invariant can
   * pass vacuously.
   */
  static Report verdict(
      Observed o,
      List<Workload.TaskSpec> tasks,
      Instant from,
      Instant upTo,
      FaultLog faults,
      List<Zombie> zombies,
      Duration grace) {
    Map<String, Workload.TaskSpec> specs =
        tasks.stream().collect(Collectors.toMap(Workload.TaskSpec::id, t -> t));
    List<LedgerRow> ledger = o.ledger();
    Map<String, Row> rows = new HashMap<>();
    Map<Long, Row> rowsById = new HashMap<>();
    int duplicateRows = 0;
    for (Row r : o.rows()) {
      if (rows.put(r.taskId() + "/" + r.windowKey(), r) != null) {
        duplicateRows++;
      }
      rowsById.put(r.id(), r);
    }
    Map<Long, List<Event>> events = new HashMap<>();
    for (Event e : o.events().stream().sorted(Comparator.comparingLong(Event::id)).toList()) {
      events.computeIfAbsent(e.instanceId(), k -> new ArrayList<>()).add(e);
    }
    List<EffectCallRow> calls = o.calls();
    List<EffectRecordRow> effectRecords = o.effectRecords();
    // By "instance#attempt", as the zombie's held leases are named.
    Map<String, List<Instant>> checkpointsSaved = new HashMap<>();
    Map<String, String> checkpointWorker = new HashMap<>();
    for (CheckpointRow k : o.checkpoints()) {
      String key = k.instanceId() + "#" + k.attempt();
      checkpointsSaved.computeIfAbsent(key, x -> new ArrayList<>()).add(k.savedAt());
      checkpointWorker.put(key, k.worker());
    }
    Instant dbNow = o.dbNow();

    List<Check> checks = new ArrayList<>();

    // 1. Every window whose fire time fell inside the run has exactly one row.
    Set<String> expected = new HashSet<>();
    for (Workload.TaskSpec t : tasks) {
      CronSchedule cron = CronSchedule.parse(t.cron(), ZoneId.of(t.zone()));
      for (Instant fire : cron.fireTimes(from, upTo, 100_000)) {
        expected.add(
            t.id() + "/" + WindowKind.EVERY_FIRE.windowOf(fire, ZoneId.of(t.zone())).key());
      }
    }
    List<String> missing = expected.stream().filter(k -> !rows.containsKey(k)).sorted().toList();
    checks.add(
        new Check(
            "every window in the run has exactly one instance row",
            missing.isEmpty() && duplicateRows == 0 && !expected.isEmpty(),
            expected.size()
                + " windows expected, "
                + missing.size()
                + " missing, "
                + duplicateRows
                + " duplicated"
                + sample(missing)
                + none(expected.isEmpty(), "no window expected")));
    List<Row> inRun = expected.stream().map(rows::get).filter(r -> r != null).toList();

    // 2a. At most one SUCCESS per window.
    List<String> doubleSuccess = new ArrayList<>();
    int successWrites = 0;
    for (Map.Entry<Long, List<Event>> e : events.entrySet()) {
      long successes = e.getValue().stream().filter(v -> "SUCCESS".equals(v.to())).count();
      successWrites += (int) successes;
      if (successes > 1) {
        doubleSuccess.add(key(rowsById.get(e.getKey())) + " x" + successes);
      }
    }
    checks.add(
        new Check(
            "no window has two SUCCESS writes",
            doubleSuccess.isEmpty() && successWrites > 0,
            successWrites
                + " SUCCESS writes, "
                + doubleSuccess.size()
                + " windows with two"
                + sample(doubleSuccess)
                + none(successWrites == 0, "no SUCCESS written")));

    // 2b. Every write follows the state chain, and a RUNNING attempt's end is written by the claim
    // holder with the claim's attempt (the fencing token) or by the lease expiry.
    List<String> fenced = new ArrayList<>();
    int endsOfRuns = 0;
    for (Map.Entry<Long, List<Event>> e : events.entrySet()) {
      String status = null;
      Integer attempt = null;
      String holder = null;
      for (Event v : e.getValue()) {
        if (v.from() != null && !v.from().equals(status)) {
          fenced.add(
              key(rowsById.get(e.getKey()))
                  + " event "
                  + v.id()
                  + " from "
                  + v.from()
                  + " but row was "
                  + status);
        }
        if ("PENDING".equals(v.from()) && "RUNNING".equals(v.to())) {
          attempt = v.attempt();
          holder = v.actor();
        } else if ("RUNNING".equals(v.from())) {
          endsOfRuns++;
          if (v.attempt() == null || !v.attempt().equals(attempt)) {
            fenced.add(
                key(rowsById.get(e.getKey()))
                    + " event "
                    + v.id()
                    + " attempt "
                    + v.attempt()
                    + " while the claim is attempt "
                    + attempt);
          }
          boolean byHolder = v.actor().equals(holder);
          boolean expiry = "TIMEOUT".equals(v.to()) && !byHolder;
          if (!byHolder && !expiry) {
            fenced.add(
                key(rowsById.get(e.getKey()))
                    + " event "
                    + v.id()
                    + " by "
                    + v.actor()
                    + " but attempt "
                    + attempt
                    + " is held by "
                    + holder);
          }
        }
        if (v.to() != null) {
          status = v.to();
        }
      }
    }
    checks.add(
        new Check(
            "no write from a fenced-out attempt (state chain and attempt per event)",
            fenced.isEmpty() && endsOfRuns > 0,
            o.events().size()
                + " events, "
                + endsOfRuns
                + " ends of a RUNNING attempt, "
                + fenced.size()
                + " bad"
                + sample(fenced)
                + none(endsOfRuns == 0, "no RUNNING attempt ended")));

    // 2c. The zombie: after SIGCONT, nothing written for the attempts whose lease expired.
    for (Zombie z : zombies) {
      int expired = 0;
      List<String> zombieWrites = new ArrayList<>();
      for (String lease : z.heldLeases()) {
        long id = Long.parseLong(lease.substring(0, lease.indexOf('#')));
        int att = Integer.parseInt(lease.substring(lease.indexOf('#') + 1));
        List<Event> ev = events.getOrDefault(id, List.of());
        boolean lost =
            ev.stream()
                .anyMatch(
                    v ->
                        "RUNNING".equals(v.from())
                            && Integer.valueOf(att).equals(v.attempt())
                            && !v.actor().equals(z.worker()));
        if (lost) {
          expired++;
          ev.stream()
              .filter(v -> v.actor().equals(z.worker()) && v.at().isAfter(z.resumedAt()))
              .filter(v -> Integer.valueOf(att).equals(v.attempt()))
              .forEach(v -> zombieWrites.add("instance " + id + " event " + v.id()));
          // Its checkpoint (the last of its attempt, saved_at the latest save) and its effect
          // records: nothing of the lost attempt may be dated after the resume.
          checkpointsSaved.getOrDefault(lease, List.of()).stream()
              .filter(at -> z.worker().equals(checkpointWorker.get(lease)))
              .filter(at -> at.isAfter(z.resumedAt()))
              .forEach(at -> zombieWrites.add("instance " + id + " checkpoint at " + at));
          Row row = rowsById.get(id);
          String window = key(row);
          effectRecords.stream()
              .filter(r -> r.window().equals(window) && r.attempt() == att)
              .filter(r -> r.worker().equals(z.worker()))
              .filter(r -> r.doneAt() != null && r.doneAt().isAfter(z.resumedAt()))
              .forEach(r -> zombieWrites.add("instance " + id + " effect record at " + r.doneAt()));
        }
      }
      checks.add(
          new Check(
              "zombie "
                  + z.worker()
                  + " ("
                  + z.how()
                  + " past its lease) wrote nothing after resume (events, checkpoints,"
                  + " effect records)",
              zombieWrites.isEmpty() && expired > 0,
              "held "
                  + z.heldLeases().size()
                  + " leases, "
                  + expired
                  + " expired while frozen, "
                  + zombieWrites.size()
                  + " writes after resume"
                  + sample(zombieWrites)
                  + (expired == 0 ? " (no lease expired: the fault proved nothing)" : "")));
    }

    // 3. Nothing unfinished past its lease / due time plus grace.
    List<String> stuck = new ArrayList<>();
    Instant overdue = dbNow.minus(grace);
    for (Row r : o.rows()) {
      Instant due =
          switch (r.status()) {
            case "RUNNING" -> r.leaseUntil();
            case "RETRY_WAIT" -> r.nextAttemptAt();
            case "PENDING", "FAILED", "TIMEOUT" -> r.updatedAt();
            default -> null;
          };
      if (due != null && due.isBefore(overdue)) {
        stuck.add(key(r) + " " + r.status());
      }
    }
    checks.add(
        new Check(
            "nothing PENDING/RUNNING/RETRY_WAIT past its lease or due time + "
                + grace.toSeconds()
                + "s",
            stuck.isEmpty() && !inRun.isEmpty(),
            inRun.size()
                + " rows of the run checked, "
                + stuck.size()
                + " stuck (db now "
                + dbNow
                + ")"
                + sample(stuck)
                + none(inRun.isEmpty(), "no row of the run")));

    // 4. Ends as the policy says.
    List<String> policy = new ArrayList<>();
    Map<Workload.Kind, Integer> decided = new TreeMap<>();
    for (Row r : inRun) {
      Workload.TaskSpec t = specs.get(r.taskId());
      List<Event> ev = events.getOrDefault(r.id(), List.of());
      long agentFailures =
          ev.stream().filter(v -> "RUNNING".equals(v.from()) && "FAILED".equals(v.to())).count();
      long timeouts = ev.stream().filter(v -> "TIMEOUT".equals(v.to())).count();
      String why = null;
      if (UNFINISHED.contains(r.status())
          || "FAILED".equals(r.status())
          || "TIMEOUT".equals(r.status())) {
        // Judged by check 3; not yet decided here.
        continue;
      }
      if ("SKIPPED".equals(r.status())) {
        why = t.kind() == Workload.Kind.OVERLAP_SKIP ? null : "SKIPPED under overlap ALLOW";
      } else if (r.maxRetry() != t.maxRetries()) {
        why = "max_retry " + r.maxRetry() + " but the policy says " + t.maxRetries();
      } else if ("DEAD".equals(r.status()) && !r.nonRetryable() && r.retryCount() != r.maxRetry()) {
        why = "DEAD with retries left (" + r.retryCount() + "/" + r.maxRetry() + ")";
      } else if (r.retryCount() > r.maxRetry()) {
        why = "retried " + r.retryCount() + " times, policy allows " + r.maxRetry();
      } else {
        why =
            switch (t.kind()) {
              case OK, OVERLAP_ALLOW, RECOVERS, BURST ->
                  "SUCCESS".equals(r.status())
                          || "DEAD".equals(r.status()) && timeouts > r.maxRetry() - agentFailures
                      ? null
                      : "expected SUCCESS, was " + r.status();
              case OVERLAP_SKIP ->
                  Set.of("SUCCESS", "SKIPPED").contains(r.status())
                          || "DEAD".equals(r.status()) && agentFailures == 0
                      ? null
                      : "expected SUCCESS or SKIPPED, was " + r.status();
              case EXHAUSTS ->
                  "DEAD".equals(r.status()) && r.retryCount() == 2
                      ? null
                      : "expected DEAD after 2 retries, was "
                          + r.status()
                          + " after "
                          + r.retryCount();
              case NON_RETRYABLE -> {
                // The agent fails non-retryably on its first run; an earlier attempt may have
                // failed retryably because the database went away under it (its checkpoint write
                // cut by a crash, restart, hang or partition), and was rightly retried.
                long cutOff = failuresUnderDatabaseLoss(ev, faults);
                yield "DEAD".equals(r.status())
                        && r.nonRetryable()
                        && agentFailures - cutOff == 1
                        && r.retryCount() == timeouts + cutOff
                    ? null
                    : "expected DEAD after one non-retryable attempt, was "
                        + r.status()
                        + " after "
                        + agentFailures
                        + " failed attempts ("
                        + cutOff
                        + " while the database was cut off), "
                        + r.retryCount()
                        + " retries";
              }
              case NO_POLICY ->
                  "DEAD".equals(r.status()) && r.retryCount() == 0
                      ? null
                      : "expected DEAD without retry, was "
                          + r.status()
                          + " after "
                          + r.retryCount();
            };
      }
      decided.merge(t.kind(), 1, Integer::sum);
      if (why != null) {
        policy.add(key(r) + ": " + why);
      }
    }
    List<Workload.Kind> undecided =
        tasks.stream()
            .map(Workload.TaskSpec::kind)
            .distinct()
            .sorted()
            .filter(k -> !decided.containsKey(k))
            .toList();
    checks.add(
        new Check(
            "every failed instance ended as its retry policy says",
            policy.isEmpty() && undecided.isEmpty(),
            "ended per kind "
                + decided
                + ", "
                + policy.size()
                + " not as the policy says"
                + sample(policy)
                + none(!undecided.isEmpty(), "no instance of " + undecided + " ended")));

    // When each attempt was claimed, by whom: the first RUNNING event of it (events are in id
    // order).
    Map<String, Instant> claims = new HashMap<>();
    for (Event v : o.events()) {
      Row r = rowsById.get(v.instanceId());
      if (r != null && "RUNNING".equals(v.to()) && v.attempt() != null) {
        claims.putIfAbsent(
            claimKey(r.taskId() + "/" + r.windowKey(), v.attempt(), v.actor()), v.at());
      }
    }

    // 5. Ledger: real executions per window, and why any window ran more than once per attempt
    // chain.
    Map<String, List<LedgerRow>> byWindow = new LinkedHashMap<>();
    Map<String, Integer> perAttempt = new HashMap<>();
    for (LedgerRow l : ledger) {
      byWindow.computeIfAbsent(l.taskId() + "/" + l.windowKey(), k -> new ArrayList<>()).add(l);
      perAttempt.merge(l.taskId() + "/" + l.windowKey() + "#" + l.attempt(), 1, Integer::sum);
    }
    List<String> sameAttemptTwice =
        perAttempt.entrySet().stream()
            .filter(e -> e.getValue() > 1)
            .map(e -> e.getKey() + " x" + e.getValue())
            .sorted()
            .toList();
    checks.add(
        new Check(
            "no attempt was executed twice",
            sameAttemptTwice.isEmpty() && !ledger.isEmpty(),
            ledger.size()
                + " executions, "
                + sameAttemptTwice.size()
                + " attempts executed twice"
                + sample(sameAttemptTwice)
                + none(ledger.isEmpty(), "the ledger is empty")));

    List<String> unclaimed = new ArrayList<>();
    List<String> unexplained = new ArrayList<>();
    List<Reexecution> reexecutions = new ArrayList<>();
    for (Map.Entry<String, List<LedgerRow>> w : byWindow.entrySet()) {
      Row r = rows.get(w.getKey());
      List<Event> ev = r == null ? List.of() : events.getOrDefault(r.id(), List.of());
      List<LedgerRow> runs =
          w.getValue().stream().sorted(Comparator.comparingInt(LedgerRow::attempt)).toList();
      for (int i = 0; i < runs.size(); i++) {
        LedgerRow run = runs.get(i);
        Instant claim = claims.get(claimKey(w.getKey(), run.attempt(), run.worker()));
        if (claim == null) {
          unclaimed.add(w.getKey() + " attempt " + run.attempt() + " on " + run.worker());
        }
        if (i == runs.size() - 1) {
          continue;
        }
        Optional<Event> end =
            ev.stream()
                .filter(v -> "RUNNING".equals(v.from()))
                .filter(v -> Integer.valueOf(run.attempt()).equals(v.attempt()))
                .findFirst();
        if (end.isPresent() && "FAILED".equals(end.get().to())) {
          continue; // a retry the policy asked for, not a repeated execution
        }
        Instant lostAt = end.map(Event::at).orElse(upTo);
        // The lease began with the claim, which may come seconds before the run's start (a claimed
        // instance waits for a thread): a crash in between costs that lease as much as one after.
        Instant claimedAt =
            claim != null && claim.isBefore(run.startedAt()) ? claim : run.startedAt();
        Optional<FaultLog.Entry> cause =
            faults.entries().stream()
                .filter(
                    f ->
                        f.kind().losesWorkerLeases() && f.target().equals(run.worker())
                            || f.kind().isDatabaseOutage())
                // The fault acted (a kill at once; a freeze, cut or crash until it ended) between
                // the claim and the loss of its lease.
                .filter(
                    f ->
                        !faultEnd(f, faults).isBefore(claimedAt.minusSeconds(1))
                            && !f.at().isAfter(lostAt))
                .findFirst();
        LedgerRow next = runs.get(i + 1);
        boolean afterLoss = !next.startedAt().isBefore(lostAt.minusMillis(100));
        String causeText =
            cause
                .map(f -> f.kind() + " " + f.target())
                .orElse("UNEXPLAINED (" + end.map(Event::to).orElse("no end") + ")");
        reexecutions.add(new Reexecution(w.getKey(), run.attempt(), run.worker(), causeText));
        if (cause.isEmpty() || !afterLoss) {
          unexplained.add(
              w.getKey()
                  + " attempt "
                  + run.attempt()
                  + " on "
                  + run.worker()
                  + ": "
                  + causeText
                  + (afterLoss ? "" : ", re-run started before the lease was lost")
                  + " ("
                  + timeline(claimedAt, run.startedAt(), lostAt, faults)
                  + ")");
        }
      }
    }
    checks.add(
        new Check(
            "every execution in the ledger holds a claim for its attempt",
            unclaimed.isEmpty() && !ledger.isEmpty(),
            ledger.size()
                + " executions, "
                + unclaimed.size()
                + " without a claim"
                + sample(unclaimed)
                + none(ledger.isEmpty(), "the ledger is empty")));
    checks.add(
        new Check(
            "every repeated execution followed a lost lease explained by a kill, freeze or cut of its"
                + " worker, or a PostgreSQL crash or hang",
            unexplained.isEmpty() && !ledger.isEmpty(),
            ledger.size()
                + " executions, "
                + reexecutions.size()
                + " repeated, "
                + unexplained.size()
                + " unexplained"
                + sample(unexplained)
                + none(ledger.isEmpty(), "the ledger is empty")));

    checks.add(ledgerPerSuccess(inRun, events, ledger));
    checks.add(notEarly(inRun, events, ledger, faults));
    checks.add(timeoutsAfterLease(events, rowsById, ledger, specs));

    EffectVerdict effects = effectChecks(calls, effectRecords, faults, claims);
    checks.addAll(effects.checks());

    int succeeded = (int) inRun.stream().filter(r -> "SUCCESS".equals(r.status())).count();
    int dead = (int) inRun.stream().filter(r -> "DEAD".equals(r.status())).count();
    int skipped = (int) inRun.stream().filter(r -> "SKIPPED".equals(r.status())).count();
    return new Report(
        expected.size(),
        inRun.size(),
        succeeded,
        dead,
        skipped,
        ledger.size(),
        reexecutions,
        effects.effects(),
        checks);
  }

  /**
   * The effect checks (issue 26), from the effect table's calls, the scheduler's effect records and
   * the fault log: no window's effect applied twice, counted across every kill and freeze; once
   * never started an effect after another attempt's done record; and every repeated call of a
   * window's effect (the gap, or a zombie) is explained by a kill or a freeze of a worker that
   * called it. Pure, so that a test can plant each violation.
   */
  static EffectVerdict effectChecks(
      List<EffectCallRow> calls, List<EffectRecordRow> effectRecords, FaultLog faults) {
    return effectChecks(calls, effectRecords, faults, Map.of());
  }

  /**
   * As above, with when each attempt was claimed ({@link #claimKey}): a repeat is explained by a
   * fault from the claim of the first caller's attempt on, since its lease began there.
   */
  static EffectVerdict effectChecks(
      List<EffectCallRow> calls,
      List<EffectRecordRow> effectRecords,
      FaultLog faults,
      Map<String, Instant> claims) {
    List<Check> checks = new ArrayList<>();
    Map<String, List<EffectCallRow>> callsByWindow = new LinkedHashMap<>();
    for (EffectCallRow call : calls) {
      callsByWindow.computeIfAbsent(call.window(), k -> new ArrayList<>()).add(call);
    }
    List<String> appliedTwice = new ArrayList<>();
    List<String> repeatedUnexplained = new ArrayList<>();
    int repeated = 0;
    int appliedWindows = 0;
    for (Map.Entry<String, List<EffectCallRow>> w : callsByWindow.entrySet()) {
      long applied = w.getValue().stream().filter(EffectCallRow::applied).count();
      if (applied > 0) {
        appliedWindows++;
      }
      if (applied > 1) {
        appliedTwice.add(w.getKey() + " applied x" + applied);
      }
      if (w.getValue().size() > 1) {
        repeated += w.getValue().size() - 1;
        EffectCallRow firstCall = w.getValue().get(0);
        Instant first =
            Optional.ofNullable(
                    claims.get(claimKey(w.getKey(), firstCall.attempt(), firstCall.worker())))
                .filter(claimed -> claimed.isBefore(firstCall.at()))
                .orElse(firstCall.at());
        Instant last = w.getValue().get(w.getValue().size() - 1).at();
        Set<String> callers =
            w.getValue().stream().map(EffectCallRow::worker).collect(Collectors.toSet());
        // A kill acts at an instant; a freeze lasts until its worker's resume, so a zombie frozen
        // before its call and calling after the resume is explained by it too.
        boolean explained =
            faults.entries().stream()
                .filter(
                    f ->
                        f.kind().losesWorkerLeases() && callers.contains(f.target())
                            || f.kind().isDatabaseOutage())
                .anyMatch(
                    f ->
                        !faultEnd(f, faults).isBefore(first.minusSeconds(1))
                            && !f.at().isAfter(last));
        if (!explained) {
          repeatedUnexplained.add(
              w.getKey()
                  + " called "
                  + w.getValue().size()
                  + " times by "
                  + w.getValue().stream()
                      .map(v -> v.worker() + "#" + v.attempt() + (v.inDoubt() ? " in doubt" : ""))
                      .toList()
                  + " ("
                  + timeline(first, firstCall.at(), last, faults).replace(", lost ", ", again ")
                  + ")");
        }
      }
    }
    long kills =
        faults.entries().stream().filter(f -> f.kind() == FaultLog.Kind.KILL_WORKER).count();
    long freezes =
        faults.entries().stream().filter(f -> f.kind() == FaultLog.Kind.FREEZE_WORKER).count();
    long partitions =
        faults.entries().stream()
            .filter(
                f ->
                    f.kind().losesWorkerLeases()
                        && f.kind().endedBy() == FaultLog.Kind.HEAL_PARTITION)
            .count();
    checks.add(
        new Check(
            "no window's effect executed twice (across "
                + kills
                + " worker kills, "
                + freezes
                + " freezes and "
                + partitions
                + " worker partitions)",
            appliedTwice.isEmpty() && appliedWindows > 0,
            appliedWindows
                + " windows' effects applied once, "
                + calls.size()
                + " calls, "
                + repeated
                + " repeated calls dropped by the idempotency key, "
                + appliedTwice.size()
                + " applied twice"
                + sample(appliedTwice)
                + (appliedWindows == 0 ? " (no effect ran: the check proved nothing)" : "")));

    List<String> startedAfterDone = new ArrayList<>();
    Map<String, List<EffectRecordRow>> recordsByWindow = new HashMap<>();
    for (EffectRecordRow r : effectRecords) {
      recordsByWindow.computeIfAbsent(r.window(), k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<String, List<EffectRecordRow>> w : recordsByWindow.entrySet()) {
      for (EffectRecordRow done : w.getValue()) {
        if (done.doneAt() == null) {
          continue;
        }
        w.getValue().stream()
            .filter(s -> s.attempt() != done.attempt())
            .filter(s -> s.startedAt().isAfter(done.doneAt()))
            .forEach(
                s ->
                    startedAfterDone.add(
                        w.getKey()
                            + " attempt "
                            + s.attempt()
                            + " started at "
                            + s.startedAt()
                            + " after attempt "
                            + done.attempt()
                            + " recorded it done at "
                            + done.doneAt()));
      }
    }
    checks.add(
        new Check(
            "once never started an effect another attempt had recorded as done",
            startedAfterDone.isEmpty() && !effectRecords.isEmpty(),
            effectRecords.size()
                + " effect starts, "
                + startedAfterDone.size()
                + " after a done record"
                + sample(startedAfterDone)
                + none(effectRecords.isEmpty(), "no effect record")));
    checks.add(
        new Check(
            "every repeated call of an effect followed a kill, freeze or cut of a worker that called it,"
                + " or a PostgreSQL crash or hang",
            repeatedUnexplained.isEmpty() && !calls.isEmpty(),
            calls.size()
                + " calls, "
                + repeated
                + " repeated, "
                + repeatedUnexplained.size()
                + " windows unexplained"
                + sample(repeatedUnexplained)
                + none(calls.isEmpty(), "no effect called")));
    return new EffectVerdict(new Effects(appliedWindows, calls.size(), repeated), checks);
  }

  /**
   * When a fault stops acting: a kill at once, a freeze at its worker's next resume, a partition at
   * its target's next heal, a PostgreSQL crash when the server is up again.
   */
  /**
   * How many of an instance's failed attempts, all but its last, failed while the database was cut
   * off from the worker that ran them: a crash, restart or hang of PostgreSQL, or that worker's
   * partition from it, acted between the attempt's claim (less a second) and its failure.
   */
  static long failuresUnderDatabaseLoss(List<Event> ev, FaultLog faults) {
    List<Event> failures =
        ev.stream().filter(v -> "RUNNING".equals(v.from()) && "FAILED".equals(v.to())).toList();
    long cutOff = 0;
    for (Event failed : failures.subList(0, Math.max(0, failures.size() - 1))) {
      Instant claimed =
          ev.stream()
              .filter(
                  v -> "RUNNING".equals(v.to()) && Objects.equals(v.attempt(), failed.attempt()))
              .map(Event::at)
              .findFirst()
              .orElse(failed.at());
      boolean explained =
          faults.entries().stream()
              .filter(
                  f ->
                      f.kind().isDatabaseOutage()
                          || f.kind() == FaultLog.Kind.POSTGRES_RESTART
                          || f.kind() == FaultLog.Kind.PARTITION_WORKER_PG
                              && f.target().equals(failed.actor()))
              .anyMatch(
                  f ->
                      !faultEnd(f, faults).isBefore(claimed.minusSeconds(1))
                          && !f.at().isAfter(failed.at()));
      if (explained) {
        cutOff++;
      }
    }
    return cutOff;
  }

  private static Instant faultEnd(FaultLog.Entry f, FaultLog faults) {
    FaultLog.Kind end = f.kind().endedBy();
    if (end == null) {
      return f.at();
    }
    return faults.entries().stream()
        .filter(r -> r.kind() == end && r.target().equals(f.target()))
        .map(FaultLog.Entry::at)
        .filter(at -> !at.isBefore(f.at()))
        .min(Comparator.naturalOrder())
        .orElse(Instant.MAX);
  }

  /** Repeated executions per cause, e.g. {@code KILL_WORKER -> 7}. */
  static Map<String, Long> causes(List<Reexecution> reexecutions) {
    return reexecutions.stream()
        .collect(
            Collectors.groupingBy(
                r -> r.cause().split(" ")[0], TreeMap::new, Collectors.counting()));
  }

  /**
   * A ledger row for every SUCCESS: the attempt that wrote SUCCESS really ran, on the worker that
   * wrote it (a SUCCESS without an execution would be work reported but never done).
   */
  private static Check ledgerPerSuccess(
      List<Row> inRun, Map<Long, List<Event>> events, List<LedgerRow> ledger) {
    Set<String> ran = new HashSet<>();
    for (LedgerRow l : ledger) {
      ran.add(l.taskId() + "/" + l.windowKey() + "#" + l.attempt() + "@" + l.worker());
    }
    int successes = 0;
    List<String> unbacked = new ArrayList<>();
    for (Row r : inRun) {
      for (Event v : events.getOrDefault(r.id(), List.of())) {
        if ("SUCCESS".equals(v.to())) {
          successes++;
          if (!ran.contains(key(r) + "#" + v.attempt() + "@" + v.actor())) {
            unbacked.add(key(r) + " attempt " + v.attempt() + " by " + v.actor());
          }
        }
      }
    }
    return new Check(
        "every SUCCESS has a ledger row of its attempt on the worker that wrote it",
        unbacked.isEmpty() && successes > 0,
        successes
            + " SUCCESS writes, "
            + unbacked.size()
            + " without an execution"
            + sample(unbacked)
            + none(successes == 0, "no SUCCESS in the run"));
  }

  private static final Pattern LEASE_EXPIRED = Pattern.compile("lease expired at (\\S+)");

  /**
   * Every TIMEOUT after its lease expired. The retry service's move names the lease it found
   * expired ("lease expired at T"), and the event's time is the database's: it must be later than
   * T. A TIMEOUT the holder wrote itself (its agent overran the task timeout) must come at least
   * the task timeout after that attempt's ledger start.
   */
  private static Check timeoutsAfterLease(
      Map<Long, List<Event>> events,
      Map<Long, Row> rowsById,
      List<LedgerRow> ledger,
      Map<String, Workload.TaskSpec> specs) {
    Map<String, Instant> started = new HashMap<>();
    for (LedgerRow l : ledger) {
      started.merge(
          l.taskId() + "/" + l.windowKey() + "#" + l.attempt() + "@" + l.worker(),
          l.startedAt(),
          (a, b) -> a.isBefore(b) ? a : b);
    }
    int timeouts = 0;
    List<String> early = new ArrayList<>();
    for (Map.Entry<Long, List<Event>> e : events.entrySet()) {
      String holder = null;
      for (Event v : e.getValue()) {
        if ("RUNNING".equals(v.to())) {
          holder = v.actor();
        }
        if (!"TIMEOUT".equals(v.to())) {
          continue;
        }
        timeouts++;
        Row r = rowsById.get(e.getKey());
        String what = key(r) + " attempt " + v.attempt() + " event " + v.id() + " at " + v.at();
        if (v.actor().equals(holder)) {
          Instant start = started.get(key(r) + "#" + v.attempt() + "@" + holder);
          Workload.TaskSpec t = r == null ? null : specs.get(r.taskId());
          if (start == null || t == null || v.at().isBefore(start.plus(Workload.TASK_TIMEOUT))) {
            early.add(what + ": the holder's own TIMEOUT before its task timeout ran out");
          }
          continue;
        }
        Matcher m = LEASE_EXPIRED.matcher(v.reason() == null ? "" : v.reason());
        if (!m.find()) {
          early.add(what + ": no expired lease named (" + v.reason() + ")");
          continue;
        }
        Instant lease;
        try {
          lease = Instant.parse(m.group(1));
        } catch (DateTimeParseException ex) {
          early.add(what + ": unreadable lease '" + m.group(1) + "'");
          continue;
        }
        if (!v.at().isAfter(lease)) {
          early.add(what + ": before its lease ran out at " + lease);
        }
      }
    }
    return new Check(
        "every TIMEOUT came after its lease expired",
        early.isEmpty() && timeouts > 0,
        timeouts
            + " TIMEOUT writes, "
            + early.size()
            + " early"
            + sample(early)
            + none(timeouts == 0, "no TIMEOUT: no lease was lost, the faults proved nothing"));
  }

  /**
   * How much earlier than its {@code trigger.create-ahead} a trigger that creates ahead may create
   * a window: its tick starts at the database's time as measured over one round trip.
   */
  static final Duration CREATE_AHEAD_TOLERANCE = Duration.ofMillis(100);

  /**
   * No window created or started before its fire time, by the database's clock (every event's time
   * is the database's): a creation (the event with no from-status), every claim and every handler's
   * start come at or after the row's {@code scheduled_at}. A start is the ledger row's {@code
   * inserted_at}, the handler's first write, so a start is caught early when its first write still
   * came before the fire time. A trigger that creates ahead ({@code CREATE_AHEAD} in the fault log)
   * may create a window up to its setting (and {@link #CREATE_AHEAD_TOLERANCE}) before, and must
   * have created some ahead, or the setting proved nothing; a worker that claims ahead ({@code
   * CLAIM_AHEAD}) may claim up to its setting before (the claim's own condition, by the same clock
   * as its event) and must have claimed some ahead, but its handlers may not start early. With a
   * trigger whose clock was skewed ({@code CLOCK_SKEW} in the fault log), that trigger must have
   * created windows itself, or the skew proved nothing.
   */
  private static Check notEarly(
      List<Row> inRun, Map<Long, List<Event>> events, List<LedgerRow> ledger, FaultLog faults) {
    List<String> early = new ArrayList<>();
    int creations = 0;
    int claims = 0;
    Map<String, Duration> aheadOf = new TreeMap<>();
    Map<String, Integer> createdAhead = new TreeMap<>();
    Map<String, Duration> claimAheadOf = new TreeMap<>();
    Map<String, Integer> claimedAhead = new TreeMap<>();
    for (FaultLog.Entry f : faults.entries()) {
      if (f.kind() == FaultLog.Kind.CREATE_AHEAD) {
        aheadOf.put(
            "trigger:" + f.target(),
            dev.carillon.model.Durations.parse("create-ahead", f.detail())
                .plus(CREATE_AHEAD_TOLERANCE));
        createdAhead.put("trigger:" + f.target(), 0);
      }
      if (f.kind() == FaultLog.Kind.CLAIM_AHEAD) {
        claimAheadOf.put(f.target(), dev.carillon.model.Durations.parse("claim-ahead", f.detail()));
        claimedAhead.put(f.target(), 0);
      }
    }
    Map<String, Integer> bySkewed = new TreeMap<>();
    Set<String> skewed =
        faults.entries().stream()
            .filter(f -> f.kind() == FaultLog.Kind.CLOCK_SKEW)
            .map(f -> "trigger:" + f.target())
            .collect(Collectors.toSet());
    skewed.forEach(a -> bySkewed.put(a, 0));
    for (Row r : inRun) {
      for (Event v : events.getOrDefault(r.id(), List.of())) {
        boolean creation = v.from() == null && v.to() != null;
        boolean claim = "PENDING".equals(v.from()) && "RUNNING".equals(v.to());
        if (creation) {
          creations++;
          bySkewed.computeIfPresent(v.actor(), (k, n) -> n + 1);
        }
        if (claim) {
          claims++;
        }
        Instant earliest =
            creation
                ? r.scheduledAt().minus(aheadOf.getOrDefault(v.actor(), Duration.ZERO))
                : r.scheduledAt().minus(claimAheadOf.getOrDefault(v.actor(), Duration.ZERO));
        if (v.at().isBefore(r.scheduledAt())) {
          if (creation) {
            createdAhead.computeIfPresent(v.actor(), (k, n) -> n + 1);
          } else if (claim) {
            claimedAhead.computeIfPresent(v.actor(), (k, n) -> n + 1);
          }
        }
        if ((creation || claim) && v.at().isBefore(earliest)) {
          early.add(
              key(r)
                  + (creation ? " created" : " claimed")
                  + " by "
                  + v.actor()
                  + " at "
                  + v.at()
                  + ", before its fire time "
                  + r.scheduledAt());
        }
      }
    }
    Map<String, Row> byWindow = new HashMap<>();
    inRun.forEach(r -> byWindow.put(key(r), r));
    int starts = 0;
    for (LedgerRow l : ledger) {
      Row r = byWindow.get(l.taskId() + "/" + l.windowKey());
      if (r == null) {
        continue;
      }
      starts++;
      if (l.insertedAt().isBefore(r.scheduledAt())) {
        early.add(
            key(r)
                + " attempt "
                + l.attempt()
                + " started by "
                + l.worker()
                + " (its first write at "
                + l.insertedAt()
                + "), before its fire time "
                + r.scheduledAt());
      }
    }
    boolean skewIdle = bySkewed.values().stream().anyMatch(n -> n == 0);
    boolean aheadIdle = createdAhead.values().stream().anyMatch(n -> n == 0);
    boolean claimAheadIdle = claimedAhead.values().stream().anyMatch(n -> n == 0);
    return new Check(
        "no window created or started before its fire time (database clock)",
        early.isEmpty()
            && creations > 0
            && starts > 0
            && !skewIdle
            && !aheadIdle
            && !claimAheadIdle,
        creations
            + " creations, "
            + claims
            + " claims, "
            + starts
            + " handler starts"
            + (bySkewed.isEmpty() ? "" : ", created by skewed triggers " + bySkewed)
            + (createdAhead.isEmpty() ? "" : ", created ahead " + createdAhead)
            + (claimedAhead.isEmpty() ? "" : ", claimed ahead " + claimedAhead)
            + ", "
            + early.size()
            + " early"
            + sample(early)
            + none(creations == 0, "no window created")
            + none(starts == 0, "no handler started")
            + none(skewIdle, "a skewed trigger created no window")
            + none(aheadIdle, "a trigger set to create ahead created no window ahead")
            + none(claimAheadIdle, "a worker set to claim ahead claimed no window ahead"));
  }

  /**
   * A trigger leader SIGSTOPped past its ZooKeeper session and resumed: what the harness read from
   * the database around it. Epochs are {@code leader_epoch}'s for the trigger; writes are the
   * events the frozen trigger wrote (actor {@code trigger:NAME}), counted just before SIGCONT and
   * after a watch.
   */
  record FrozenLeader(
      String name,
      Instant frozenAt,
      Instant resumedAt,
      long epochAtFreeze,
      long epochAtResume,
      long epochAfterWatch,
      long writesAtResume,
      long writesAfterWatch,
      Duration watch) {}

  /**
   * The frozen leader wrote nothing after it resumed: a successor took a newer epoch while it was
   * stopped (or the freeze proved nothing), no newer term began during the watch (or the check is
   * inconclusive, which fails too), and its writes did not grow.
   */
  static Check frozenLeader(FrozenLeader f) {
    boolean deposed = f.epochAtResume() > f.epochAtFreeze();
    boolean sameTerm = f.epochAfterWatch() == f.epochAtResume();
    long after = f.writesAfterWatch() - f.writesAtResume();
    return new Check(
        "frozen trigger leader " + f.name() + " wrote nothing after SIGCONT (fencing)",
        deposed && sameTerm && after == 0,
        "epoch "
            + f.epochAtFreeze()
            + " at the freeze, "
            + f.epochAtResume()
            + " at SIGCONT, "
            + f.epochAfterWatch()
            + " "
            + f.watch().toSeconds()
            + " s later; "
            + f.writesAtResume()
            + " events by it before SIGCONT, "
            + after
            + " written after"
            + (deposed ? "" : " (no successor took over: the freeze proved nothing)")
            + (sameTerm ? "" : " (a new term began during the watch: inconclusive)"));
  }

  /** The note a check adds when it saw no input, and fails for it. */
  private static String none(boolean empty, String what) {
    return empty ? " (" + what + ": the check proved nothing)" : "";
  }

  private static String key(Row r) {
    return r == null ? "?" : r.taskId() + "/" + r.windowKey();
  }

  /** The key of an attempt's claim: {@code task/window#attempt@worker}. */
  static String claimKey(String window, int attempt, String worker) {
    return window + "#" + attempt + "@" + worker;
  }

  /**
   * When an unexplained repeat's attempt was claimed, started and lost its lease, and the faults
   * that acted within a minute before its loss: what a reader needs to judge it from CI's output
   * alone, without the run's logs.
   */
  static String timeline(Instant claimedAt, Instant startedAt, Instant lostAt, FaultLog faults) {
    DateTimeFormatter t = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);
    List<String> near =
        faults.entries().stream()
            .filter(f -> !faultEnd(f, faults).isBefore(lostAt.minusSeconds(60)))
            .filter(f -> !f.at().isAfter(lostAt))
            // An end is printed with its fault, not on its own.
            .filter(
                f -> Arrays.stream(FaultLog.Kind.values()).noneMatch(k -> k.endedBy() == f.kind()))
            .map(
                f ->
                    f.kind()
                        + " "
                        + f.target()
                        + " "
                        + t.format(f.at())
                        + (f.kind().endedBy() == null
                            ? ""
                            : "-"
                                + (faultEnd(f, faults).equals(Instant.MAX)
                                    ? "open"
                                    : t.format(faultEnd(f, faults)))))
            .toList();
    return "claimed "
        + t.format(claimedAt)
        + ", started "
        + t.format(startedAt)
        + ", lost "
        + t.format(lostAt)
        + "; faults in the minute before: "
        + (near.isEmpty() ? "none" : String.join(", ", near));
  }

  private static String sample(List<String> items) {
    return items.isEmpty() ? "" : "; e.g. " + items.stream().limit(5).toList();
  }
}
