package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The state of the whole system at a glance ({@code GET /overview}): what is running and waiting,
 * what died, how late the trigger fires, who leads, and when the retry service last scanned.
 *
 * <p>Its instants are UTC only: they count across every task, whose zones differ, so no one task's
 * wall clock is the right one to read them on.
 *
 * @param at when the server read it
 * @param live instances per status that has not finished (PENDING, RUNNING, RETRY_WAIT, FAILED,
 *     TIMEOUT), zeros included
 * @param dead how many instances are DEAD
 * @param perHour instances scheduled in each of the last {@code hours} hours (UTC), oldest first,
 *     every hour listed (empty ones too)
 * @param fireLag how late the trigger created the scheduled windows of the last hour
 * @param trigger the trigger's leader as ZooKeeper sees it, and which replica answered
 * @param retryScan the retry service's last scan pass, or null when none was recorded
 * @param workers live workers per queue, or what keeps them from being shown
 */
@Stability.Evolving
public record OverviewView(
    Instant at,
    Map<String, Long> live,
    long dead,
    List<Hour> perHour,
    FireLag fireLag,
    Leader trigger,
    Scan retryScan,
    Workers workers) {

  /**
   * One hour's instances by status.
   *
   * @param hour the hour's first instant
   * @param counts instances scheduled in it, per status (only statuses with some)
   */
  @Stability.Evolving
  public record Hour(Instant hour, Map<String, Long> counts) {}

  /**
   * Fire lag: the time from a window's fire time to the trigger's creating its instance.
   *
   * @param from the fire times counted are in [from, at)
   * @param windows how many scheduled windows it is computed over
   */
  @Stability.Evolving
  public record FireLag(Instant from, long windows, long p50Ms, long p95Ms, long maxMs) {}

  /**
   * The trigger's leadership.
   *
   * @param leader the leading replica's id, or null when there is none (or ZooKeeper cannot say)
   * @param servedBy the replica that answered this request (every replica serves the API)
   */
  @Stability.Evolving
  public record Leader(String leader, String servedBy) {}

  /**
   * One scan pass of the retry service.
   *
   * @param holder the retry instance that ran it
   * @param leader whether it led then
   * @param complete false when it stopped early (leadership lost)
   * @param tookMs how long it ran
   */
  @Stability.Evolving
  public record Scan(
      String holder,
      boolean leader,
      Instant startedAt,
      Instant finishedAt,
      long tookMs,
      boolean complete,
      int timedOut,
      int retried,
      int dead,
      int promoted,
      int republished,
      int heldBack,
      int archived) {}

  /**
   * Live workers per queue.
   *
   * @param known whether this server can tell (false: {@code note} says why)
   * @param note why they are not known, or null
   * @param queues per queue, the live workers (empty when not known)
   */
  @Stability.Evolving
  public record Workers(boolean known, String note, List<Queue> queues) {}

  /**
   * One queue's live workers.
   *
   * @param workers the ids of the live workers serving it
   */
  @Stability.Evolving
  public record Queue(String queue, List<String> workers) {}
}
