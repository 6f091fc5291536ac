package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.LEADER_EPOCH;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The leader epochs ({@code leader_epoch}, one row per leader-elected service): a new leader takes
 * the next epoch as its term begins ({@link #begin}), and the stores check the epoch of every
 * leader-only write against this table in the same statement ({@link Fence}).
 *
 * <p>The check reads the row {@code FOR SHARE}, and a transaction holds that lock until it ends;
 * {@link #begin} updates the row, so it waits for every write in progress under the old epoch to
 * commit or roll back, and a write that starts after it sees the new epoch. No write of an old
 * epoch can therefore commit after a new one was taken. A session frozen inside a transaction is
 * ended by PostgreSQL's {@code idle_in_transaction_session_timeout} ({@code db.statement-timeout}),
 * so it cannot hold a new leader back for longer.
 *
 * <p>Thread-safe; every method is one statement.
 */
public final class EpochStore {
  /**
   * Who holds a service's current epoch.
   *
   * @param fence the service and its current epoch
   * @param holder the instance that took it ({@code instance.id})
   * @param since when it was taken (database time)
   */
  public record Holder(Fence fence, String holder, Instant since) {}

  private final DSLContext dsl;

  public EpochStore(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Takes the next epoch of {@code service} for {@code holder}: every write under an older epoch is
   * refused from now on. Waits for writes in progress under the old epoch to end.
   */
  public Fence begin(String service, String holder) {
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(holder, "holder");
    long epoch =
        dsl.insertInto(LEADER_EPOCH, LEADER_EPOCH.SERVICE, LEADER_EPOCH.EPOCH, LEADER_EPOCH.HOLDER)
            .values(service, 1L, holder)
            .onConflict(LEADER_EPOCH.SERVICE)
            .doUpdate()
            .set(LEADER_EPOCH.EPOCH, LEADER_EPOCH.EPOCH.plus(1))
            .set(LEADER_EPOCH.HOLDER, DSL.excluded(LEADER_EPOCH.HOLDER))
            .set(LEADER_EPOCH.SINCE, Sql.NOW)
            .returning(LEADER_EPOCH.EPOCH)
            .fetchSingle(LEADER_EPOCH.EPOCH);
    return new Fence(service, epoch);
  }

  /** The current epoch of {@code service} and its holder, if any leader ever took one. */
  public Optional<Holder> current(String service) {
    return dsl.selectFrom(LEADER_EPOCH)
        .where(LEADER_EPOCH.SERVICE.eq(service))
        .fetchOptional()
        .map(r -> new Holder(new Fence(service, r.getEpoch()), r.getHolder(), r.getSince()));
  }

  /** Whether {@code fence} is still the current epoch of its service. */
  public boolean holds(Fence fence) {
    return Fences.holds(dsl, fence);
  }
}
