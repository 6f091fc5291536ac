package dev.carillon.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.EffectCall;
import dev.carillon.api.NonRetryableException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Handler {@code ledger}, for the fault-injection suite only: it writes one row to the table
 * {@value #TABLE} for every execution that really started, then performs the window's one side
 * effect, a row in {@value #EFFECT_TABLE}, through {@link AgentContext#once}, then sleeps,
 * checkpoints and succeeds or fails like {@code sleep}. The ledger is how the suite counts real
 * executions, and the effect table how it counts effects, independently of the scheduler's own
 * bookkeeping.
 *
 * <p>The run row is {@code (task_id, window_key, attempt, worker_id, started_at)}. The effect table
 * plays a system that honours idempotency keys: each call of the effect inserts one row {@code
 * (call_id, ..., effect_key, in_doubt, applied)}, and {@code applied} is true only for the first
 * call with its key (decided under an advisory lock on the key, in the inserting transaction). So a
 * repeated call (the gap {@code once} leaves, or a zombie) shows as a row that was not applied, and
 * an effect applied twice would show as two applied rows. Both are written with plain JDBC to the
 * database the worker itself uses ({@code CARILLON_DB_URL}, {@code CARILLON_DB_USER}, {@code
 * CARILLON_DB_PASSWORD} of the worker process; the worker's id is {@code CARILLON_INSTANCE_ID}),
 * over connections kept for the next write (at most {@link #IDLE_CONNECTIONS} idle per worker): a
 * fresh connection per write, two per run, started a PostgreSQL backend each, and at the suite's
 * 150-200 runs a second that was most of a core of the two the whole suite shares, which slowed the
 * drain of the long outages' backlogs. A connection that fails is closed, never kept. The tables
 * are created by the harness. Each write is retried for up to {@link #LEDGER_PATIENCE} so that a
 * PostgreSQL restart injected by the suite does not turn into an agent failure; the effect's
 * retries carry one call id, so a retry after a commit whose answer was lost does not count as a
 * second call.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>durationMs</td><td>500</td><td>how long to sleep after the effect</td></tr>
 *   <tr><td>failFirst</td><td>0</td><td>fail attempts 1..N</td></tr>
 *   <tr><td>nonRetryable</td><td>false</td><td>fail with {@link NonRetryableException}</td></tr>
 * </table>
 */
public final class LedgerAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "ledger";

  /** The table the harness creates and this agent appends a row per execution to. */
  public static final String TABLE = "ledger";

  /** The table the harness creates and this agent's effect writes to. */
  public static final String EFFECT_TABLE = "ledger_effect";

  /** The key of the window's one effect. */
  public static final String EFFECT = "ledger-write";

  /** How long the ledger insert keeps trying while the database is unreachable. */
  public static final Duration LEDGER_PATIENCE = Duration.ofSeconds(20);

  /** Idle connections a worker keeps for the next write; more are closed after their write. */
  static final int IDLE_CONNECTIONS = 16;

  /**
   * Every read on a ledger connection ends within this (PgJDBC's {@code socketTimeout}), so that a
   * connection kept across a cut from the database fails like a new one would, instead of waiting
   * for the link to return.
   */
  private static final int SOCKET_TIMEOUT_SECONDS = 10;

  private static final BlockingQueue<Connection> IDLE = new ArrayBlockingQueue<>(IDLE_CONNECTIONS);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Required by {@link java.util.ServiceLoader}. */
  public LedgerAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    JsonNode params;
    try {
      params = JSON.readTree(context.paramsJson());
    } catch (IOException e) {
      throw new NonRetryableException("ledger: params are not JSON: " + e.getMessage());
    }
    long durationMs = params.path("durationMs").asLong(500);
    int failFirst = params.path("failFirst").asInt(0);
    boolean nonRetryable = params.path("nonRetryable").asBoolean(false);

    record(context);
    context.once(EFFECT, call -> effect(context, call));
    // Sleeping is this agent's work; an interrupt (lost lease, deadline) ends it as the API asks.
    Thread.sleep(durationMs);
    // A zombie that wakes up here (frozen past its lease) tries one more write; it is refused.
    context.checkpoint("{\"slept\":" + durationMs + "}");
    if (context.attempt() <= failFirst) {
      String why = "ledger: failing attempt " + context.attempt() + " of the first " + failFirst;
      throw nonRetryable ? new NonRetryableException(why) : new IllegalStateException(why);
    }
    return AgentResult.of("ledger: attempt " + context.attempt() + " slept " + durationMs + " ms");
  }

  private static void record(AgentContext context) throws InterruptedException {
    String worker = worker();
    withLedger(
        context,
        "the ledger row",
        c -> {
          try (PreparedStatement st =
              c.prepareStatement(
                  "INSERT INTO "
                      + TABLE
                      + " (task_id, window_key, attempt, worker_id, started_at)"
                      + " VALUES (?, ?, ?, ?, ?)")) {
            st.setString(1, context.taskId());
            st.setString(2, context.windowKey());
            st.setInt(3, context.attempt());
            st.setString(4, worker);
            st.setTimestamp(5, Timestamp.from(context.startedAt()));
            st.executeUpdate();
          }
          return null;
        });
  }

  /** The effect: one call row, applied only if no earlier call with the key was applied. */
  private static String effect(AgentContext context, EffectCall call) throws InterruptedException {
    String callId = UUID.randomUUID().toString();
    String worker = worker();
    return withLedger(
        context,
        "the effect row",
        c -> {
          c.setAutoCommit(false);
          try {
            try (PreparedStatement lock =
                c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
              lock.setString(1, call.idempotencyKey());
              lock.execute();
            }
            try (PreparedStatement st =
                c.prepareStatement(
                    "INSERT INTO "
                        + EFFECT_TABLE
                        + " (call_id, task_id, window_key, attempt, worker_id, effect_key,"
                        + " in_doubt, applied) SELECT ?, ?, ?, ?, ?, ?, ?, NOT EXISTS (SELECT 1"
                        + " FROM "
                        + EFFECT_TABLE
                        + " WHERE effect_key = ? AND applied) ON CONFLICT (call_id) DO NOTHING")) {
              st.setString(1, callId);
              st.setString(2, context.taskId());
              st.setString(3, context.windowKey());
              st.setInt(4, context.attempt());
              st.setString(5, worker);
              st.setString(6, call.idempotencyKey());
              st.setBoolean(7, call.inDoubt());
              st.setString(8, call.idempotencyKey());
              st.executeUpdate();
            }
            c.commit();
          } catch (SQLException e) {
            c.rollback();
            throw e;
          }
          return "call " + callId + " by attempt " + context.attempt();
        });
  }

  private static String worker() {
    return System.getenv().getOrDefault("CARILLON_INSTANCE_ID", "unknown");
  }

  @FunctionalInterface
  private interface LedgerWrite<T> {
    T apply(Connection c) throws SQLException;
  }

  /**
   * Runs {@code write} on a kept or a new connection, again (on a new one) while the database
   * restarts.
   */
  private static <T> T withLedger(AgentContext context, String what, LedgerWrite<T> write)
      throws InterruptedException {
    String url = System.getenv("CARILLON_DB_URL");
    if (url == null) {
      throw new NonRetryableException("ledger: CARILLON_DB_URL is not set in the worker");
    }
    long giveUp = System.nanoTime() + LEDGER_PATIENCE.toNanos();
    while (true) {
      Connection c = null;
      boolean keep = false;
      try {
        c = borrow(url);
        T out = write.apply(c);
        keep = true;
        return out;
      } catch (SQLException e) {
        // Most likely the database restarted: the kept connections are as dead as this one.
        dropKept();
        if (System.nanoTime() > giveUp) {
          throw new IllegalStateException("ledger: cannot write " + what + ": " + e, e);
        }
        context.checkCancelled();
        // The database is restarting (an injected fault); try again shortly.
        Thread.sleep(250);
      } finally {
        giveBack(c, keep);
      }
    }
  }

  private static Connection borrow(String url) throws SQLException {
    Connection kept = IDLE.poll();
    if (kept != null) {
      return kept;
    }
    Properties props = new Properties();
    props.setProperty("user", System.getenv().getOrDefault("CARILLON_DB_USER", "postgres"));
    props.setProperty("password", System.getenv().getOrDefault("CARILLON_DB_PASSWORD", ""));
    props.setProperty("socketTimeout", Integer.toString(SOCKET_TIMEOUT_SECONDS));
    return DriverManager.getConnection(url, props);
  }

  private static void dropKept() {
    for (Connection kept = IDLE.poll(); kept != null; kept = IDLE.poll()) {
      giveBack(kept, false);
    }
  }

  /** Keeps {@code c} for the next write when its write worked and there is room; else closes it. */
  private static void giveBack(Connection c, boolean worked) {
    if (c == null) {
      return;
    }
    try {
      if (worked) {
        c.setAutoCommit(true);
        if (IDLE.offer(c)) {
          return;
        }
      }
      c.close();
    } catch (SQLException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // Broken already: nothing to release.
      }
    }
  }
}
