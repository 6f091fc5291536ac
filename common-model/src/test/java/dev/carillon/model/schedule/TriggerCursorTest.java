package dev.carillon.model.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A cursor recorded under other zone rules than today's is moved to where its local time is now.
 * The recorded offsets below stand for rules that differed from the JVM's Europe/Berlin (+01:00 in
 * winter, +02:00 in summer; gap 2026-03-29 02:00-03:00, overlap 2026-10-25 02:00-03:00).
 */
class TriggerCursorTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

  @Test
  void a_cursor_whose_offset_the_rules_still_give_stays_where_it_is() {
    TriggerCursor cursor = TriggerCursor.at(Instant.parse("2026-07-01T12:00:00Z"), BERLIN);

    assertThat(cursor.offset()).isEqualTo(ZoneOffset.ofHours(2));
    assertThat(cursor.underRulesOf(BERLIN)).isSameAs(cursor);
  }

  @Test
  void a_cursor_in_the_second_occurrence_of_a_repeated_hour_stays_there_under_the_same_rules() {
    // 01:30Z on 2026-10-25 is the second 02:30 (+01:00); the first was at 00:30Z.
    TriggerCursor cursor = TriggerCursor.at(Instant.parse("2026-10-25T01:30:00Z"), BERLIN);

    assertThat(cursor.underRulesOf(BERLIN)).isSameAs(cursor);
  }

  @Test
  void a_cursor_stored_without_an_offset_keeps_its_instant_and_gets_the_current_offset() {
    Instant at = Instant.parse("2026-07-01T12:00:00Z");

    assertThat(new TriggerCursor(at, null).underRulesOf(BERLIN))
        .isEqualTo(new TriggerCursor(at, ZoneOffset.ofHours(2)));
  }

  @ParameterizedTest(name = "{0} recorded at {1} is {2} under today''s rules")
  @CsvSource({
    // recorded instant,  recorded offset, moved to,           why
    // Summer time abolished (+03:00 then, +02:00 now): local 15:00 is an hour later.
    "2026-07-01T12:00:00Z, +03:00, 2026-07-01T13:00:00Z",
    // Summer time brought in (+01:00 then, +02:00 now): local 13:00 is an hour earlier.
    "2026-07-01T12:00:00Z, +01:00, 2026-07-01T11:00:00Z",
    // Local 02:30 on 2026-10-25 happens twice now: the first occurrence.
    "2026-10-25T05:30:00Z, -03:00, 2026-10-25T00:30:00Z",
    // Local 02:30 on 2026-03-29 does not happen now: the last second before the gap.
    "2026-03-29T05:30:00Z, -03:00, 2026-03-29T00:59:59Z",
  })
  void a_cursor_whose_offset_changed_moves_to_its_local_time_under_the_current_rules(
      Instant recorded, ZoneOffset offset, Instant moved) {
    TriggerCursor cursor = new TriggerCursor(recorded, offset).underRulesOf(BERLIN);

    assertThat(cursor).isEqualTo(TriggerCursor.at(moved, BERLIN));
  }
}
