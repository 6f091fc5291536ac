package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The worker's claims and ends read only the rows they name, even when the statistics are stale:
 * here they were taken on the empty table, as on a fresh database or at the start of a burst, and
 * then 20,000 rows arrived. Measured with PostgreSQL's own counters of rows read by sequential and
 * index scans of {@code task_instance}, all on one connection so that the counters of the
 * statements under test are flushed by the session that ran them.
 */
class PrimaryKeyPlansTest {
  private static final int ROWS = 20_000;
  private static final int RUNNING = 2_000;
  private static final int BATCH = 300;
  private static final String TASK = "keyed-plans";

  private static Database db;
  private static List<Long> ids;

  @BeforeAll
  static void open() {
    db = TestDatabase.fresh("keyed", 2, Database.PRIMARY_KEY_PLANS);
    WindowStore windows = new WindowStore(db.dsl());
    new TaskStore(db.dsl()).applyAll(List.of(Tasks.daily(TASK).build()));
    db.dsl().execute("ANALYZE task_instance");
    List<NewInstance> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(Tasks.pendingKey(TASK, "k" + i, Duration.ofMinutes(10)));
    }
    ids = windows.create(rows, "test").stream().map(Instance::id).sorted().toList();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void a_claim_and_an_end_read_only_their_own_rows_with_statistics_of_an_empty_table() {
    db.dsl()
        .connection(
            c -> {
              // One session (with the pool's session settings) for the statements and the counters.
              DSLContext session = DSL.using(db.dsl().configuration().derive(c));
              LeaseStore leases = new LeaseStore(session);
              List<Long> running = ids.subList(0, RUNNING);
              assertThat(leases.claim(running, "w-1")).hasSize(RUNNING);

              List<Long> claimed = ids.subList(ROWS / 2, ROWS / 2 + BATCH);
              TableReads beforeClaim = TableReads.of(session, "task_instance");
              assertThat(leases.claim(claimed, "w-1")).hasSize(BATCH);
              TableReads claimReads = TableReads.of(session, "task_instance").minus(beforeClaim);

              List<AttemptEnd> ends = new ArrayList<>();
              for (Long id : running.subList(RUNNING / 2, RUNNING / 2 + BATCH)) {
                ends.add(new AttemptEnd(new Lease(id, 1), Outcome.success("ok", false, null)));
              }
              TableReads beforeEnd = TableReads.of(session, "task_instance");
              assertThat(leases.completeAll(ends, "w-1")).hasSize(BATCH);
              TableReads endReads = TableReads.of(session, "task_instance").minus(beforeEnd);

              // 300 primary-key probes each. A plan from a partial status index or a scan reads
              // the other 17,700 PENDING rows (claim), the 2,000 RUNNING ones (end), or all 20,000.
              assertThat(claimReads.sequential()).as("claim: rows read sequentially").isZero();
              assertThat(claimReads.index())
                  .as("claim: rows fetched by index")
                  .isBetween(1L, 2L * BATCH);
              assertThat(endReads.sequential()).as("end: rows read sequentially").isZero();
              assertThat(endReads.index())
                  .as("end: rows fetched by index")
                  .isBetween(1L, 2L * BATCH);
            });
  }
}
