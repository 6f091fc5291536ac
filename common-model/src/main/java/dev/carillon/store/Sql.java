package dev.carillon.store;

import dev.carillon.model.instance.InstanceStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collection;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The SQL pieces the stores share: the database clock, batches of ids as {@code unnest} tables, and
 * statuses as literals. Every lease and due-time comparison uses the database clock, so services
 * with skewed clocks cannot disagree about who holds a lease.
 */
final class Sql {
  private Sql() {}

  /** The database's clock at the start of the transaction. */
  static final Field<Instant> NOW = DSL.field("now()", SQLDataType.INSTANT);

  static final Field<Long> ID_COLUMN = DSL.field(DSL.name("ids", "id"), Long.class);
  static final Field<String> EXPECTED_COLUMN = DSL.field(DSL.name("ids", "expected"), String.class);

  /** {@code now() + millis}, for a lease that runs from now for a row's own timeout. */
  static Field<Instant> nowPlus(Field<Long> millis) {
    return DSL.field("now() + ({0} * interval '1 millisecond')", SQLDataType.INSTANT, millis);
  }

  /**
   * PostgreSQL's clock now ({@code clock_timestamp()}, not the transaction's start), in one round
   * trip: what the trigger ticks on and what a worker that claims ahead measures its offset to.
   */
  static Instant clockTimestamp(DSLContext dsl) {
    return dsl.select(DSL.field("clock_timestamp()", SQLDataType.INSTANT)).fetchSingle().value1();
  }

  /** {@code now() + d}, in whole milliseconds, the duration a bind value. */
  static Field<Instant> ahead(Duration d) {
    return nowPlus(DSL.val(d.toMillis()));
  }

  /** {@code now() - d}, in whole milliseconds. */
  static Field<Instant> ago(Duration d) {
    return DSL.field(
        "now() - ({0} * interval '1 millisecond')", SQLDataType.INSTANT, DSL.val(d.toMillis()));
  }

  /**
   * The ids as a table {@code ids(id)} to join with. Why not {@code id = ANY(?)}: the planner may
   * then scan a partial status index and test every row against the whole array, which costs (rows
   * × ids). That is what it does when the statistics still say that few rows are PENDING, i.e. at
   * the start of a burst, when claims are largest.
   */
  static Table<?> idTable(Collection<Long> ids) {
    return DSL.table("unnest({0}::bigint[]) as ids(id)", DSL.val(ids.toArray(Long[]::new)));
  }

  /**
   * The ids as a table {@code ids(id, expected)} for a compare-and-set: join with {@code id =
   * ids.id AND status = ids.expected}, where {@code expected} is the status every row must still
   * have. The expected status is a join column, not a literal or a bound value, on purpose: as a
   * filter on {@code task_instance} its row estimate comes from the statistics, which lag a burst
   * by up to a minute (autovacuum's naptime) and on a fresh table say ~1 row. With that estimate
   * the planner drives a batch from the partial status index, or a scan, in a nested loop that
   * compares every row with every id, or hashes every row in that status. As a join column it
   * leaves the table's estimate at the whole table, so the choices are a primary-key probe per id
   * or, for a batch that is a large part of the table, one hash join: linear either way; the
   * worker's sessions leave only the probe ({@link Database#PRIMARY_KEY_PLANS}).
   */
  static Table<?> idTable(Collection<Long> ids, InstanceStatus expected) {
    return DSL.table(
        "unnest({0}::bigint[], {1}::varchar[]) as ids(id, expected)",
        DSL.val(ids.toArray(Long[]::new)), DSL.val(repeated(expected, ids.size())));
  }

  /**
   * {@code column IN (...)} with the statuses as SQL literals, not bind values, for the scans that
   * a partial index serves ({@code WHERE status = 'RUNNING'} and the like, migration V1).
   * PostgreSQL matches an index predicate only against constants: after five executions a prepared
   * statement may switch to a cached generic plan, which cannot prove that {@code status = $1}
   * implies the predicate, so it scans the table instead, and it is chosen exactly when the
   * statistics say the table is small, i.e. right after a burst. The statuses are enum names, never
   * input.
   */
  static Condition statusIn(Field<String> column, Collection<InstanceStatus> statuses) {
    return column.in(statuses.stream().map(st -> DSL.inline(st.name())).toList());
  }

  /** {@code column = 'STATUS'} as a literal, for the reason given at {@link #statusIn}. */
  static Condition statusIs(Field<String> column, InstanceStatus status) {
    return column.eq(DSL.inline(status.name()));
  }

  /** {@code n} copies of {@code status}: the expected-status column of an unnest batch. */
  static String[] repeated(InstanceStatus status, int n) {
    String[] column = new String[n];
    Arrays.fill(column, status.name());
    return column;
  }
}
