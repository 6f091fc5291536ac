package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;

import dev.carillon.model.instance.InstanceEvent;
import java.util.List;
import org.jooq.DSLContext;

/** Reads the event log in order, for live views (the local stack's transition feed). */
public final class EventQueries {
  private final DSLContext dsl;

  public EventQueries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** Events with an id greater than {@code afterId}, oldest first, at most {@code limit}. */
  public List<InstanceEvent> after(long afterId, int limit) {
    return dsl.selectFrom(INSTANCE_EVENT)
        .where(INSTANCE_EVENT.ID.gt(afterId))
        .orderBy(INSTANCE_EVENT.ID)
        .limit(limit)
        .fetch()
        .map(EventRows::toEvent);
  }

  /** The id of the newest event, or 0 when the log is empty. */
  public long lastId() {
    Long max =
        dsl.select(org.jooq.impl.DSL.max(INSTANCE_EVENT.ID))
            .from(INSTANCE_EVENT)
            .fetchOne()
            .value1();
    return max == null ? 0 : max;
  }
}
