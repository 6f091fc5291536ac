package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.LEADER_EPOCH;

import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The fencing check every leader-only statement carries (see {@link Fence} and {@link EpochStore}),
 * and what a store does when a fenced statement changed fewer rows than it must.
 */
final class Fences {
  private Fences() {}

  /**
   * {@code EXISTS (SELECT 1 FROM leader_epoch WHERE service = ? AND epoch = ? FOR SHARE)}: true
   * while {@code fence} is current. Uncorrelated, so PostgreSQL evaluates it once per statement,
   * before it touches a row; the share lock keeps a new leader's {@link EpochStore#begin} waiting
   * until the writing transaction ends.
   */
  static Condition current(Fence fence) {
    return DSL.exists(
        DSL.selectOne()
            .from(LEADER_EPOCH)
            .where(LEADER_EPOCH.SERVICE.eq(fence.service()))
            .and(LEADER_EPOCH.EPOCH.eq(fence.epoch()))
            .forShare());
  }

  /**
   * Takes {@code fence}'s share lock in {@code tx}, for writes that cannot carry {@link #current}
   * in their own statement: throws {@link FencedException} when it is no longer current; otherwise
   * no successor can take a newer epoch until {@code tx} ends.
   */
  static void lockCurrent(DSLContext tx, Fence fence, String write) {
    Boolean held = tx.select(DSL.field(current(fence))).fetchOne(0, Boolean.class);
    if (!Boolean.TRUE.equals(held)) {
      throw new FencedException(fence, write);
    }
  }

  /** Whether {@code fence} is still current (a plain read). */
  static boolean holds(DSLContext dsl, Fence fence) {
    return dsl.fetchExists(
        LEADER_EPOCH,
        LEADER_EPOCH.SERVICE.eq(fence.service()).and(LEADER_EPOCH.EPOCH.eq(fence.epoch())));
  }

  /**
   * After a fenced statement changed no row where it might legitimately have changed none (every
   * window existed, another actor won a compare-and-set): throws {@link FencedException} if the
   * epoch moved on, so that a deposed writer learns it and an ordinary no-op stays one.
   */
  static void checkAfterNoOp(DSLContext dsl, Fence fence, String write) {
    if (!holds(dsl, fence)) {
      throw new FencedException(fence, write);
    }
  }
}
