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
import org.jooq.Query;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The statements that write a batch of instances named by id (the dispatch stamp of everyone who
 * publishes, the retry service's stranded-row claim and its unstamp) find the batch's rows by the
 * ids, whatever the statistics say and whichever plan PostgreSQL caches: by a primary-key probe per
 * id or one hash join, linear in the batch either way, never by comparing each row of a status with
 * each id.
 *
 * <p>The table is analyzed empty and then 20,000 PENDING rows arrive, as at the start of a burst.
 * With the status a bound value ({@code status = $1}), PostgreSQL planned the stamp of 1,000 ids as
 * a scan of the PENDING index joined with the ids in a nested loop whose join filter compared every
 * row with every id: 19.5 million comparisons, 2.5 s for one batch, found by {@code bench/run.sh
 * lifecycle}. With the expected status a join column ({@link Sql#idTable(java.util.Collection,
 * dev.carillon.model.instance.InstanceStatus)}) the plan has no join filter. Checked on sessions
 * with custom plans (the trigger's and the retry service's) and with generic ones (a prepared
 * statement after five runs).
 */
class BatchPlansTest {
  private static final int ROWS = 20_000;
  private static final int BATCH = 1_000;

  private static Database custom;
  private static Database generic;

  @BeforeAll
  static void open() {
    custom = TestDatabase.fresh("batch_custom");
    generic = TestDatabase.genericPlans("batch_generic");
    for (Database db : List.of(custom, generic)) {
      // Statistics of the empty table for the whole class: no analyze may catch up with the rows.
      db.dsl().execute("ALTER TABLE task_instance SET (autovacuum_enabled = false)");
      db.dsl().execute("ANALYZE task_instance");
    }
  }

  @AfterAll
  static void close() {
    custom.close();
    generic.close();
  }

  @Test
  void the_dispatch_stamp_finds_its_rows_by_the_ids() {
    for (Database db : List.of(custom, generic)) {
      List<Long> ids = pendingRows(db, "stamp").subList(0, BATCH);
      assertNoJoinFilter(db, "stamp", DispatchStamp.chunkQuery(db.dsl(), ids, null));
      assertThat(new WindowStore(db.dsl()).markDispatched(ids)).isEqualTo(BATCH);
    }
  }

  @Test
  void the_stranded_claim_and_the_unstamp_find_their_rows_by_the_ids() {
    for (Database db : List.of(custom, generic)) {
      List<Long> ids = pendingRows(db, "stranded").subList(0, BATCH);
      Fence fence = new EpochStore(db.dsl()).begin("retry", "test");
      RetryStore retries = new RetryStore(db.dsl());
      // Created before "now - 0", never dispatched: every row is stranded.
      Duration undispatched = Duration.ZERO;
      Duration redispatch = Duration.ofHours(1);
      assertNoJoinFilter(
          db,
          "stranded claim",
          retries.claimForDispatchQuery(ids, undispatched, redispatch, fence));
      assertThat(retries.claimForDispatch(ids, undispatched, redispatch, fence)).hasSize(BATCH);

      assertNoJoinFilter(db, "unstamp", retries.unmarkQuery(ids, fence));
      assertThat(retries.unmarkDispatched(ids, fence)).isEqualTo(BATCH);
    }
  }

  private static void assertNoJoinFilter(Database db, String what, Query query) {
    DSLContext dsl = db.dsl();
    String plan = dsl.explain(query).plan();
    assertThat(plan)
        .as("%s of %d ids among %d fresh PENDING rows:%n%s", what, BATCH, ROWS, plan)
        .doesNotContain("Join Filter");
  }

  /** {@link #ROWS} fresh PENDING rows of one task, which the statistics do not know of. */
  private static List<Long> pendingRows(Database db, String task) {
    new TaskStore(db.dsl()).applyAll(List.of(Tasks.daily(task).build()));
    List<NewInstance> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(Tasks.pendingKey(task, "k" + i, Duration.ofMinutes(10)));
    }
    return new WindowStore(db.dsl()).create(rows, "test").stream().map(Instance::id).toList();
  }
}
