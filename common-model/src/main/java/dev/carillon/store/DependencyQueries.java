package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TRIGGER_OFFSET;

import dev.carillon.model.instance.InstanceStatus;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * What the dependency releaser reads and remembers: completions (event-log rows that moved an
 * instance to SUCCESS, DEAD, SKIPPED or CANCELLED) after a position, read by primary key through
 * the partial index {@code ix_instance_event_finished}, and named offsets that survive a leader
 * failover. Needs no change on the worker side: the event rows are written in the same transaction
 * as the transition they record.
 *
 * <p>Thread-safe; every method is one statement.
 */
public final class DependencyQueries {
  private static final Field<Long> HANDLED_ID = DSL.field(DSL.name("handled", "id"), Long.class);

  private final DSLContext dsl;

  public DependencyQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * One finished instance as the event log recorded it.
   *
   * @param eventId the event row's id: the read position
   * @param at when the transition committed (its transaction's start, database clock)
   */
  public record Completion(
      long eventId,
      long instanceId,
      String taskId,
      String windowKey,
      InstanceStatus status,
      Instant at) {
    public Completion {
      Objects.requireNonNull(taskId, "taskId");
      Objects.requireNonNull(windowKey, "windowKey");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(at, "at");
    }
  }

  /** Completions with {@code id > afterId}, oldest first, at most {@code limit}. */
  public List<Completion> completionsAfter(long afterId, int limit) {
    return read(INSTANCE_EVENT.ID.gt(afterId), limit);
  }

  /**
   * Completions with {@code afterId < id <= upTo} whose ids are not in {@code handled}, oldest
   * first, at most {@code limit}: rows that committed after a read had already passed their id.
   *
   * <p>The handled ids are joined as a hashed {@code NOT IN (SELECT unnest(?))}, not as {@code id
   * <> ALL(?)}: PostgreSQL tests a bound array element by element, so each read would compare every
   * row with every id a burst leaves in the settle window.
   */
  public List<Completion> lateCompletions(
      long afterId, long upTo, Collection<Long> handled, int limit) {
    Condition range = INSTANCE_EVENT.ID.gt(afterId).and(INSTANCE_EVENT.ID.le(upTo));
    if (!handled.isEmpty()) {
      range =
          range.and(
              INSTANCE_EVENT.ID.notIn(
                  DSL.select(HANDLED_ID)
                      .from(
                          DSL.table(
                              "unnest({0}::bigint[]) as handled(id)",
                              DSL.val(handled.toArray(Long[]::new))))));
    }
    return read(range, limit);
  }

  private List<Completion> read(Condition range, int limit) {
    return dsl.selectFrom(INSTANCE_EVENT)
        .where(range)
        .and(Sql.statusIn(INSTANCE_EVENT.TO_STATUS, InstanceStatus.FINISHED))
        .and(INSTANCE_EVENT.INSTANCE_ID.isNotNull())
        .and(INSTANCE_EVENT.WINDOW_KEY.isNotNull())
        .orderBy(INSTANCE_EVENT.ID)
        .limit(limit)
        .fetch(
            r ->
                new Completion(
                    r.getId(),
                    r.getInstanceId(),
                    r.getTaskId(),
                    r.getWindowKey(),
                    InstanceStatus.valueOf(r.getToStatus()),
                    r.getCreatedAt()));
  }

  /**
   * The database's clock, which is the clock of every completion's {@link Completion#at}: how far
   * the event log has settled is measured on it, never on this host's clock.
   */
  public Instant dbNow() {
    return dsl.select(Sql.NOW).fetchSingle().value1();
  }

  /** The id of the newest completion in the event log, or 0 when there is none. */
  public long newestCompletion() {
    Long id =
        dsl.select(DSL.max(INSTANCE_EVENT.ID))
            .from(INSTANCE_EVENT)
            .where(Sql.statusIn(INSTANCE_EVENT.TO_STATUS, InstanceStatus.FINISHED))
            .fetchOne(0, Long.class);
    return id == null ? 0L : id;
  }

  /** The stored position called {@code name}, or 0 when none was stored. */
  public long offset(String name) {
    return dsl.select(TRIGGER_OFFSET.POSITION)
        .from(TRIGGER_OFFSET)
        .where(TRIGGER_OFFSET.NAME.eq(name))
        .fetchOptional(TRIGGER_OFFSET.POSITION)
        .orElse(0L);
  }

  /**
   * Stores {@code position} under {@code name}, never moving it backwards, while {@code fence} (the
   * trigger leader's) is current.
   *
   * @throws FencedException when {@code fence} is no longer current; nothing was stored
   */
  public void saveOffset(String name, long position, Fence fence) {
    Objects.requireNonNull(fence, "fence");
    int written =
        dsl.insertInto(TRIGGER_OFFSET, TRIGGER_OFFSET.NAME, TRIGGER_OFFSET.POSITION)
            .select(
                DSL.select(
                        DSL.val(name, TRIGGER_OFFSET.NAME),
                        DSL.val(position, TRIGGER_OFFSET.POSITION))
                    .where(Fences.current(fence)))
            .onConflict(TRIGGER_OFFSET.NAME)
            .doUpdate()
            .set(
                TRIGGER_OFFSET.POSITION,
                DSL.greatest(TRIGGER_OFFSET.POSITION, DSL.excluded(TRIGGER_OFFSET.POSITION)))
            .set(TRIGGER_OFFSET.UPDATED_AT, Sql.NOW)
            .execute();
    if (written == 0) {
      throw new FencedException(fence, "offset " + name);
    }
  }
}
