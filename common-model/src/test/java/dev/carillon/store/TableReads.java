package dev.carillon.store;

import java.util.List;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.DSL;

/**
 * Rows read from some tables by sequential scans and fetched by index scans, as PostgreSQL's own
 * per-table counters ({@code pg_stat_user_tables}) count them: how a test sees which plan a
 * statement ran without parsing plans.
 */
record TableReads(long sequential, long index) {
  static final TableReads NONE = new TableReads(0, 0);

  TableReads minus(TableReads earlier) {
    return new TableReads(sequential - earlier.sequential, index - earlier.index);
  }

  TableReads plus(TableReads other) {
    return new TableReads(sequential + other.sequential, index + other.index);
  }

  /**
   * The counters of {@code tables} as of now. Call it on the session that ran the statements:
   * forcing the next flush and ending a transaction publishes that session's pending counts
   * (PostgreSQL otherwise flushes them at most once a second).
   */
  static TableReads of(DSLContext session, String... tables) {
    session.execute("SELECT pg_stat_force_next_flush()");
    session.execute("SELECT pg_stat_clear_snapshot()");
    Record r =
        session
            .resultQuery(
                "SELECT coalesce(sum(seq_tup_read), 0), coalesce(sum(idx_tup_fetch), 0)"
                    + " FROM pg_stat_user_tables WHERE relname IN (SELECT unnest({0}::text[]))",
                DSL.val(List.of(tables).toArray(String[]::new)))
            .fetchOne();
    return new TableReads(r.get(0, Long.class), r.get(1, Long.class));
  }

  /**
   * Runs {@code body} on one session of {@code db}'s pool, so that its counters are the ones read.
   */
  static void onOneSession(Database db, java.util.function.Consumer<DSLContext> body) {
    db.dsl().connection(c -> body.accept(DSL.using(db.dsl().configuration().derive(c))));
  }
}
