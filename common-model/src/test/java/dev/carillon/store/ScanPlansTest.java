package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The background scans (lease expiry, due retries and their backlog, failed instances, the
 * stranded-PENDING sweeps, the archiver, the dependency releaser's newest completion) read their
 * partial indexes even under a cached generic plan, which PostgreSQL may switch a prepared
 * statement to after five runs. A generic plan can use a partial index only when the status in the
 * query is a literal ({@link Sql#statusIn}); here the session forces generic plans, the statistics
 * are those of the empty tables, and 20,000 rows that none of the scans may act on are in the way.
 * Rows read are counted with PostgreSQL's own per-table counters, on the session that ran the
 * scans.
 */
class ScanPlansTest {
  private static final int ROWS = 20_000;
  private static final int RUNNING = 300;
  private static final String TASK = "scan-plans";

  private static Database db;
  private static Fence fence;

  @BeforeAll
  static void open() {
    db = TestDatabase.genericPlans("scans");
    fence = new EpochStore(db.dsl()).begin("retry", "test");
    WindowStore windows = new WindowStore(db.dsl());
    new TaskStore(db.dsl()).applyAll(List.of(Tasks.daily(TASK).build()));
    db.dsl().execute("ANALYZE task_instance");
    db.dsl().execute("ANALYZE instance_event");
    List<NewInstance> rows = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      rows.add(Tasks.pendingKey(TASK, "k" + i, Duration.ofMinutes(10)));
    }
    List<Long> ids = windows.create(rows, "test").stream().map(Instance::id).toList();
    // 20,000 PENDING rows (just created, so not stranded) with their CREATED events, of which 300
    // RUNNING with leases far from expiring.
    assertThat(new LeaseStore(db.dsl()).claim(ids.subList(0, RUNNING), "w-1")).hasSize(RUNNING);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void every_scan_reads_only_its_partial_index_under_a_generic_plan_and_stale_statistics() {
    TableReads.onOneSession(
        db,
        session -> {
          RetryStore retries = new RetryStore(session);
          DependencyQueries dependencies = new DependencyQueries(session);
          ArchiveStore archive = new ArchiveStore(session);
          Map<String, TableReads> reads = new TreeMap<>();
          // Six runs each, past the five after which a prepared statement may go generic.
          for (int run = 0; run < 6; run++) {
            TableReads before = reads(session);
            assertThat(retries.expireLeases(50, "retry", fence)).isEmpty();
            reads.merge("expireLeases", reads(session).minus(before), TableReads::plus);

            before = reads(session);
            assertThat(retries.promoteDueRetries(50, "retry", fence)).isEmpty();
            reads.merge("promoteDueRetries", reads(session).minus(before), TableReads::plus);

            before = reads(session);
            assertThat(retries.awaitingDecision(50)).isEmpty();
            reads.merge("awaitingDecision", reads(session).minus(before), TableReads::plus);

            before = reads(session);
            assertThat(retries.countDueRetries()).isZero();
            reads.merge("countDueRetries", reads(session).minus(before), TableReads::plus);

            before = reads(session);
            assertThat(archive.archiveFinished(Duration.ofDays(1), 50, fence)).isEmpty();
            reads.merge("archiveFinished", reads(session).minus(before), TableReads::plus);

            before = reads(session);
            assertThat(dependencies.newestCompletion()).isZero();
            reads.merge("newestCompletion", reads(session).minus(before), TableReads::plus);
          }
          // Nothing in the way is read: a sequential scan reads 20,000 rows per run, an index
          // that is not the partial one at least the 300 RUNNING or 20,000 PENDING rows.
          reads.forEach(
              (scan, r) -> {
                assertThat(r.sequential()).as(scan + ": rows read sequentially").isZero();
                assertThat(r.index()).as(scan + ": rows fetched by index").isZero();
              });
        });
  }

  @Test
  void the_stranded_pending_sweeps_read_only_pending_rows_under_a_generic_plan() {
    TableReads.onOneSession(
        db,
        session -> {
          WindowStore windows = new WindowStore(session);
          RetryStore retries = new RetryStore(session);
          TableReads trigger = TableReads.NONE;
          TableReads retry = TableReads.NONE;
          for (int run = 0; run < 6; run++) {
            TableReads before = reads(session);
            assertThat(windows.undispatched(Duration.ofMinutes(5), Duration.ofMinutes(5), 50))
                .isEmpty();
            trigger = trigger.plus(reads(session).minus(before));

            before = reads(session);
            assertThat(retries.stranded(Duration.ofMinutes(5), Duration.ofMinutes(5), 50))
                .isEmpty();
            retry = retry.plus(reads(session).minus(before));
          }
          // The PENDING index is ordered by dispatched_at, not by updated_at or created_at, so
          // each sweep walks the PENDING rows; neither may read the table sequentially.
          assertThat(trigger.sequential()).as("undispatched: rows read sequentially").isZero();
          assertThat(retry.sequential()).as("stranded: rows read sequentially").isZero();
        });
  }

  /**
   * The never-dispatched rows' search is bounded: with 19,700 fresh PENDING rows in the way and a
   * search of 1,000 entries, a sweep that finds nothing reads about the 1,000 and the rows they
   * point to, not all of them (before the bound, each sweep read every fresh row).
   */
  @Test
  void the_stranded_pending_sweeps_read_a_bounded_number_of_never_dispatched_rows() {
    int scan = 1_000;
    TableReads.onOneSession(
        db,
        session -> {
          WindowStore windows = new WindowStore(session);
          RetryStore retries = new RetryStore(session);
          for (int run = 0; run < 6; run++) {
            TableReads before = reads(session);
            assertThat(windows.undispatched(Duration.ofMinutes(5), Duration.ofMinutes(5), 50, scan))
                .isEmpty();
            TableReads trigger = reads(session).minus(before);

            before = reads(session);
            assertThat(retries.stranded(Duration.ofMinutes(5), Duration.ofMinutes(5), 50, scan))
                .isEmpty();
            TableReads retry = reads(session).minus(before);

            assertThat(trigger.sequential() + retry.sequential()).isZero();
            assertThat(trigger.index())
                .as("undispatched: rows read by index")
                .isLessThan(3L * scan);
            assertThat(retry.index()).as("stranded: rows read by index").isLessThan(3L * scan);
          }
        });
  }

  @Test
  void the_waiting_count_reads_no_instance_row_while_every_pair_of_the_definitions_is_served() {
    new TaskStore(db.dsl())
        .applyAll(
            List.of(
                Tasks.daily("pair-a1").queue("q-a").handler("h1").build(),
                Tasks.daily("pair-a2").queue("q-a").handler("h2").build(),
                Tasks.daily("pair-b1").queue("q-b").handler("h1").build()));
    PresenceStore workers = new PresenceStore(db.dsl());
    workers.register("w-default", Set.of("default"), Set.of("noop"), true, 4);
    workers.register("w-a", Set.of("q-a"), Set.of("h1", "h2"), true, 4);
    try {
      TableReads.onOneSession(
          db,
          session -> {
            PresenceStore presence = new PresenceStore(session);
            assertThat(presence.anyPairUnserved()).as("q-b with h1 has no worker").isTrue();
            assertThat(presence.waiting()).as("but none of its instances is PENDING").isEmpty();

            workers.register("w-b", Set.of("q-b"), Set.of("h1"), true, 4);
            assertThat(presence.anyPairUnserved()).isFalse();
            TableReads before = reads(session);
            assertThat(presence.waiting()).isEmpty();
            assertThat(reads(session).minus(before))
                .as("the %d PENDING rows are not read", ROWS - RUNNING)
                .isEqualTo(TableReads.NONE);

            workers.remove("w-default");
            assertThat(presence.waiting())
                .containsExactly(new PresenceStore.Waiting("default", "noop", ROWS - RUNNING));
          });
    } finally {
      workers.remove("w-default");
      workers.remove("w-a");
      workers.remove("w-b");
    }
  }

  private static TableReads reads(DSLContext session) {
    return TableReads.of(session, "task_instance", "instance_event");
  }
}
