package dev.carillon.bench.history;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Record;

/**
 * The on-disk size of the instance and event tables, live and history, and of each of their
 * indexes, with the rows PostgreSQL's statistics count live and dead, at one moment.
 *
 * @param relations by name: tables first, then their indexes, in a stable order
 */
record RelationSizes(Map<String, Size> relations) {
  static final List<String> TABLES =
      List.of("task_instance", "instance_event", "task_instance_history", "instance_event_history");

  /**
   * @param bytes {@code pg_relation_size} (the main fork; a table's indexes are listed apart)
   * @param liveRows {@code n_live_tup} of a table; -1 for an index
   * @param deadRows {@code n_dead_tup} of a table; -1 for an index
   */
  record Size(long bytes, long liveRows, long deadRows) {}

  static RelationSizes read(DSLContext dsl) {
    Map<String, Size> out = new LinkedHashMap<>();
    // The statistics collector reports a little late; a snapshot taken right after a write may
    // miss its last rows, which the report's caption says.
    for (Record r :
        dsl.fetch(
            "select relname, pg_relation_size(relid) as bytes, n_live_tup, n_dead_tup"
                + " from pg_stat_user_tables where relname = any(?::text[]) order by relname",
            (Object) TABLES.toArray(new String[0]))) {
      out.put(
          r.get("relname", String.class),
          new Size(
              r.get("bytes", Long.class),
              r.get("n_live_tup", Long.class),
              r.get("n_dead_tup", Long.class)));
    }
    for (Record r :
        dsl.fetch(
            "select indexrelname, pg_relation_size(indexrelid) as bytes"
                + " from pg_stat_user_indexes where relname = any(?::text[])"
                + " order by relname, indexrelname",
            (Object) TABLES.toArray(new String[0]))) {
      out.put(r.get("indexrelname", String.class), new Size(r.get("bytes", Long.class), -1, -1));
    }
    return new RelationSizes(out);
  }

  long bytes(String relation) {
    Size s = relations.get(relation);
    return s == null ? 0 : s.bytes();
  }
}
