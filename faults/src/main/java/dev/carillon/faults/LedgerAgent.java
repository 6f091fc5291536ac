package dev.carillon.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;

/**
 * Handler {@code ledger}, for the fault-injection suite only: it first writes one row to the table
 * {@value #TABLE} for every execution that really started, then sleeps and succeeds or fails like
 * {@code sleep}. The ledger is how the suite counts real executions independently of the
 * scheduler's own bookkeeping.
 *
 * <p>The row is {@code (task_id, window_key, attempt, worker_id, started_at)}, written with plain
 * JDBC over a short-lived connection to the database the worker itself uses ({@code
 * CARILLON_DB_URL}, {@code CARILLON_DB_USER}, {@code CARILLON_DB_PASSWORD} of the worker process;
 * the worker's id is {@code CARILLON_INSTANCE_ID}). The table is created by the harness. The insert
 * is retried for up to {@link #LEDGER_PATIENCE} so that a PostgreSQL restart injected by the suite
 * does not turn into an agent failure.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>durationMs</td><td>500</td><td>how long to sleep after writing the ledger row</td></tr>
 *   <tr><td>failFirst</td><td>0</td><td>fail attempts 1..N</td></tr>
 *   <tr><td>nonRetryable</td><td>false</td><td>fail with {@link NonRetryableException}</td></tr>
 * </table>
 */
public final class LedgerAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "ledger";

  /** The table the harness creates and this agent appends to. */
  public static final String TABLE = "ledger";

  /** How long the ledger insert keeps trying while the database is unreachable. */
  public static final Duration LEDGER_PATIENCE = Duration.ofSeconds(20);

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Required by {@link java.util.ServiceLoader}. */
  public LedgerAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws InterruptedException {
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
    // Sleeping is this agent's work; an interrupt (lost lease, deadline) ends it as the API asks.
    Thread.sleep(durationMs);
    context.checkCancelled();
    if (context.attempt() <= failFirst) {
      String why = "ledger: failing attempt " + context.attempt() + " of the first " + failFirst;
      throw nonRetryable ? new NonRetryableException(why) : new IllegalStateException(why);
    }
    return AgentResult.of("ledger: attempt " + context.attempt() + " slept " + durationMs + " ms");
  }

  private static void record(AgentContext context) throws InterruptedException {
    String url = System.getenv("CARILLON_DB_URL");
    if (url == null) {
      throw new NonRetryableException("ledger: CARILLON_DB_URL is not set in the worker");
    }
    String worker = System.getenv().getOrDefault("CARILLON_INSTANCE_ID", "unknown");
    long giveUp = System.nanoTime() + LEDGER_PATIENCE.toNanos();
    while (true) {
      try (Connection c =
              DriverManager.getConnection(
                  url,
                  System.getenv().getOrDefault("CARILLON_DB_USER", "postgres"),
                  System.getenv().getOrDefault("CARILLON_DB_PASSWORD", ""));
          PreparedStatement st =
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
        return;
      } catch (SQLException e) {
        if (System.nanoTime() > giveUp) {
          throw new IllegalStateException("ledger: cannot write the ledger row: " + e, e);
        }
        context.checkCancelled();
        // The database is restarting (an injected fault); try again shortly.
        Thread.sleep(250);
      }
    }
  }
}
