package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;
import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.testsupport.TestDatabase;
import java.time.Instant;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.conf.Settings;
import org.jooq.conf.StatementType;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every {@code timestamptz} column travels through {@link InstantBinding}: the instant written is
 * the instant read, whatever the session's time zone, as bind value and inlined alike.
 */
class InstantBindingTest {
  private static final List<Instant> INSTANTS =
      List.of(
          Instant.parse("1969-12-31T23:59:59.999999Z"),
          Instant.parse("2026-03-29T01:30:00.123456Z"), // Europe's spring-forward night
          Instant.parse("2026-10-25T01:30:00Z"),
          Instant.parse("9999-12-31T23:59:59.999999Z"));

  private static Database db;

  @BeforeAll
  static void open() {
    // A session zone far from UTC: nothing may depend on it.
    db = TestDatabase.fresh("instant_binding", 2, "SET TIME ZONE 'Pacific/Kiritimati'");
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void an_instant_written_is_the_instant_read_as_bind_value_and_inlined() {
    DSLContext inlined =
        DSL.using(
            db.dsl()
                .configuration()
                .derive(new Settings().withStatementType(StatementType.STATIC_STATEMENT)));
    for (int k = 0; k < INSTANTS.size(); k++) {
      Instant at = INSTANTS.get(k);
      DSLContext ctx = k % 2 == 0 ? db.dsl() : inlined;
      ctx.insertInto(TRIGGER_CURSOR, TRIGGER_CURSOR.TASK_ID, TRIGGER_CURSOR.EVALUATED_UNTIL)
          .values("t" + k, at)
          .execute();
      assertThat(
              ctx.select(TRIGGER_CURSOR.EVALUATED_UNTIL)
                  .from(TRIGGER_CURSOR)
                  .where(TRIGGER_CURSOR.EVALUATED_UNTIL.eq(at))
                  .fetchOne(TRIGGER_CURSOR.EVALUATED_UNTIL))
          .as("instant %s, %s", at, k % 2 == 0 ? "bound" : "inlined")
          .isEqualTo(at);
      // The database sees the same instant, not a local time in the session's zone.
      assertThat(
              db.dsl()
                  .resultQuery(
                      "SELECT to_char(evaluated_until AT TIME ZONE 'UTC',"
                          + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') FROM trigger_cursor"
                          + " WHERE task_id = {0}",
                      DSL.val("t" + k))
                  .fetchOne(0, String.class))
          .satisfies(s -> assertThat(Instant.parse(s)).isEqualTo(at));
    }
  }

  @Test
  void nanoseconds_are_rounded_to_the_microseconds_postgresql_keeps_and_null_stays_null() {
    db.dsl()
        .insertInto(TRIGGER_CURSOR, TRIGGER_CURSOR.TASK_ID, TRIGGER_CURSOR.EVALUATED_UNTIL)
        .values("nanos", Instant.parse("2026-11-30T12:00:00.123456789Z"))
        .execute();
    assertThat(
            db.dsl()
                .select(TRIGGER_CURSOR.EVALUATED_UNTIL)
                .from(TRIGGER_CURSOR)
                .where(TRIGGER_CURSOR.TASK_ID.eq("nanos"))
                .fetchOne(TRIGGER_CURSOR.EVALUATED_UNTIL))
        .isEqualTo(Instant.parse("2026-11-30T12:00:00.123457Z"));
    assertThat(
            db.dsl()
                .select(DSL.val((Instant) null, TRIGGER_CURSOR.EVALUATED_UNTIL))
                .fetchOne(0, Instant.class))
        .isNull();
  }
}
