package dev.carillon.trigger.clock;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The trigger's clock follows the database's, whatever this host's says. */
class DatabaseClockTest {
  private static final Instant T = Instant.parse("2026-11-28T08:00:00Z");

  private final SettableClock host = new SettableClock(T);
  private final AtomicReference<Instant> database = new AtomicReference<>(T);
  private final DatabaseClock clock = new DatabaseClock(host, database::get, Duration.ofSeconds(2));
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(DatabaseClock.class);

  @BeforeEach
  void capture() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void release() {
    logger.detachAppender(logs);
  }

  @Test
  void a_host_clock_30_seconds_fast_reads_the_databases_time_after_a_sync() {
    host.set(T.plusSeconds(30));

    assertThat(clock.sync()).isEqualTo(T);
    assertThat(clock.offset()).isEqualTo(Duration.ofSeconds(-30));
    host.advance(Duration.ofMillis(1500));
    assertThat(clock.instant()).as("no IO between syncs").isEqualTo(T.plusMillis(1500));
  }

  @Test
  void
      the_databases_reading_counts_as_taken_at_the_end_of_the_round_trip_so_the_clock_is_never_ahead() {
    // The query took 40 ms of host time; the database read its clock somewhere inside them.
    DatabaseClock slowQuery =
        new DatabaseClock(
            host,
            () -> {
              Instant read = database.get();
              host.advance(Duration.ofMillis(40));
              return read;
            },
            Duration.ofSeconds(2));

    Instant now = slowQuery.sync();

    assertThat(now).as("as if no time passed after the reading").isEqualTo(T);
    assertThat(slowQuery.instant()).isEqualTo(T);
  }

  @Test
  void a_skew_beyond_the_bound_is_logged_once_when_it_begins_and_once_when_it_ends() {
    host.set(T.plusSeconds(30));
    for (int i = 0; i < 5; i++) {
      clock.sync();
      host.advance(Duration.ofSeconds(1));
      database.set(database.get().plusSeconds(1));
    }
    assertThat(clock.skewed()).isTrue();
    // The host's time service steps it back into line.
    host.set(T.plusSeconds(100));
    database.set(T.plusSeconds(100));
    for (int i = 0; i < 5; i++) {
      clock.sync();
    }

    assertThat(clock.skewed()).isFalse();
    assertThat(logs.list)
        .extracting(
            ILoggingEvent::getLevel, e -> e.getFormattedMessage().contains("30000 ms ahead"))
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(Level.WARN, true),
            org.assertj.core.groups.Tuple.tuple(Level.INFO, false));
  }

  @Test
  void a_view_in_another_zone_shares_the_offset() {
    host.set(T.plusSeconds(30));
    var paris = clock.withZone(java.time.ZoneId.of("Europe/Paris"));
    clock.sync();

    assertThat(paris.instant()).isEqualTo(T);
    assertThat(paris.getZone()).isEqualTo(java.time.ZoneId.of("Europe/Paris"));
  }
}
