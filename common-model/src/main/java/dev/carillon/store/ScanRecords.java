package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.RETRY_SCAN;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;

/**
 * The retry service's last scan pass, kept in {@code retry_scan} (V18) so that the API, which runs
 * in another process, can show when the scanners last ran and what they did. One row per retry
 * instance, replaced after each of its passes.
 *
 * <p>Thread-safe; each method is one statement.
 */
public final class ScanRecords {
  /**
   * One pass.
   *
   * @param holder the retry instance that ran it
   * @param leader whether it led when it ran (a standby's pass is an operator's {@code scanOnce})
   * @param complete false when it stopped early because leadership was lost
   */
  public record Pass(
      String holder,
      boolean leader,
      Instant startedAt,
      Instant finishedAt,
      boolean complete,
      int timedOut,
      int retried,
      int dead,
      int promoted,
      int republished,
      int heldBack,
      int archived) {
    public Pass {
      Objects.requireNonNull(holder, "holder");
      Objects.requireNonNull(startedAt, "startedAt");
      Objects.requireNonNull(finishedAt, "finishedAt");
    }
  }

  private final DSLContext dsl;

  public ScanRecords(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** Keeps {@code pass} as its holder's last. */
  public void record(Pass pass) {
    dsl.insertInto(RETRY_SCAN)
        .set(RETRY_SCAN.HOLDER, pass.holder())
        .set(RETRY_SCAN.LEADER, pass.leader())
        .set(RETRY_SCAN.STARTED_AT, pass.startedAt())
        .set(RETRY_SCAN.FINISHED_AT, pass.finishedAt())
        .set(RETRY_SCAN.COMPLETE, pass.complete())
        .set(RETRY_SCAN.TIMED_OUT, pass.timedOut())
        .set(RETRY_SCAN.RETRIED, pass.retried())
        .set(RETRY_SCAN.DEAD, pass.dead())
        .set(RETRY_SCAN.PROMOTED, pass.promoted())
        .set(RETRY_SCAN.REPUBLISHED, pass.republished())
        .set(RETRY_SCAN.HELD_BACK, pass.heldBack())
        .set(RETRY_SCAN.ARCHIVED, pass.archived())
        .onConflict(RETRY_SCAN.HOLDER)
        .doUpdate()
        .set(RETRY_SCAN.LEADER, pass.leader())
        .set(RETRY_SCAN.STARTED_AT, pass.startedAt())
        .set(RETRY_SCAN.FINISHED_AT, pass.finishedAt())
        .set(RETRY_SCAN.COMPLETE, pass.complete())
        .set(RETRY_SCAN.TIMED_OUT, pass.timedOut())
        .set(RETRY_SCAN.RETRIED, pass.retried())
        .set(RETRY_SCAN.DEAD, pass.dead())
        .set(RETRY_SCAN.PROMOTED, pass.promoted())
        .set(RETRY_SCAN.REPUBLISHED, pass.republished())
        .set(RETRY_SCAN.HELD_BACK, pass.heldBack())
        .set(RETRY_SCAN.ARCHIVED, pass.archived())
        .execute();
  }

  /** The most recent pass of any retry instance, if one was recorded. */
  public Optional<Pass> latest() {
    return dsl.selectFrom(RETRY_SCAN)
        .orderBy(RETRY_SCAN.FINISHED_AT.desc())
        .limit(1)
        .fetchOptional()
        .map(
            r ->
                new Pass(
                    r.getHolder(),
                    r.getLeader(),
                    r.getStartedAt(),
                    r.getFinishedAt(),
                    r.getComplete(),
                    r.getTimedOut(),
                    r.getRetried(),
                    r.getDead(),
                    r.getPromoted(),
                    r.getRepublished(),
                    r.getHeldBack(),
                    r.getArchived()));
  }
}
