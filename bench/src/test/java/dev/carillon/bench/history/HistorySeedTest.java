package dev.carillon.bench.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.devstack.DevStack;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The seed on a real PostgreSQL: what it writes, and that only the backlog is past retention. */
class HistorySeedTest {
  private static final HistoryOptions OPTIONS = new HistoryOptions(2, 1_000, 10, 50, 1);
  private static final Instant NOW = Instant.now().truncatedTo(ChronoUnit.SECONDS);

  private static Database db;
  private static HistorySeed.IdRange backlog;

  @BeforeAll
  static void seed() {
    DevStack stack = DevStack.shared();
    db =
        Database.open(
            new DbSettings(
                stack.createDatabase("history_seed"), stack.dbUser(), stack.dbPassword(), 2));
    HistorySeed seed = new HistorySeed(db.dsl(), OPTIONS, NOW);
    seed.tasks();
    HistorySeed.IdRange first = seed.day(0);
    HistorySeed.IdRange second = seed.day(1);
    assertThat(first.size()).isEqualTo(1_000);
    assertThat(second.first()).isEqualTo(first.last() + 1);
    seed.liveRows();
    backlog = seed.backlog();
    assertThat(backlog.size()).isEqualTo(50);
  }

  @AfterAll
  static void close() {
    db.close();
  }

  @Test
  void one_in_a_thousand_is_dead_one_in_97_skipped_the_rest_succeeded_and_40_are_live() {
    DSLContext dsl = db.dsl();
    Map<String, Integer> byStatus =
        dsl.fetch("select status, count(*) as n from task_instance group by status").stream()
            .collect(Collectors.toMap(r -> r.get(0, String.class), r -> r.get(1, Integer.class)));

    // n runs 1..2,050: DEAD at 7, 1,007, 2,007; SKIPPED at the 21 multiples of 97.
    assertThat(byStatus)
        .containsEntry("DEAD", 3)
        .containsEntry("SKIPPED", 21)
        .containsEntry("SUCCESS", 2_050 - 3 - 21)
        .containsEntry("RUNNING", 20)
        .containsEntry("RETRY_WAIT", 20);
    assertThat(dsl.fetchCount(dsl.selectFrom("task_instance"))).isEqualTo(2_090);
    assertThat(
            dsl.fetchOne("select count(distinct task_id) from task_instance").get(0, Integer.class))
        .isEqualTo(OPTIONS.tasks() + 30);
  }

  @Test
  void every_finished_instance_has_its_events_and_one_in_a_hundred_a_coalesced_decision() {
    Record r =
        db.dsl()
            .fetchOne(
                "select count(*) filter (where kind = 'CREATED') as created,"
                    + " count(*) filter (where kind = 'TRANSITION') as transitions,"
                    + " count(*) filter (where kind = 'DECISION' and repeats = ?) as decisions,"
                    + " count(*) filter (where kind = 'TRANSITION' and to_status = 'DEAD'"
                    + " and reason like 'retries used up%') as dead"
                    + " from instance_event",
                HistorySeed.DECISION_REPEATS);

    assertThat(r.get("created", Integer.class)).isEqualTo(2_050);
    // SKIPPED goes from PENDING in one step, every other instance in two.
    assertThat(r.get("transitions", Integer.class)).isEqualTo(2 * 2_050 - 21);
    assertThat(r.get("decisions", Integer.class)).isBetween(20, 21);
    assertThat(r.get("dead", Integer.class)).isEqualTo(3);
  }

  @Test
  void only_the_backlog_is_older_than_the_retention() {
    Instant cutoff = NOW.minus(new HistorySeed(db.dsl(), OPTIONS, NOW).retention());
    Record r =
        db.dsl()
            .fetchOne(
                "select count(*) as due, min(id) as first, max(id) as last from task_instance"
                    + " where finished_at < ?::timestamptz",
                cutoff.atOffset(ZoneOffset.UTC));

    assertThat(r.get("due", Integer.class)).isEqualTo(50);
    assertThat(r.get("first", Long.class)).isEqualTo(backlog.first());
    assertThat(r.get("last", Long.class)).isEqualTo(backlog.last());
  }
}
