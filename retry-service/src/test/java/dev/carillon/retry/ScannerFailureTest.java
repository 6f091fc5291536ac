package dev.carillon.retry;

import static dev.carillon.model.instance.InstanceStatus.DEAD;
import static dev.carillon.model.instance.InstanceStatus.FAILED;
import static dev.carillon.model.instance.InstanceStatus.PENDING;
import static dev.carillon.model.instance.InstanceStatus.RETRY_WAIT;
import static dev.carillon.model.instance.InstanceStatus.RUNNING;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.retry.scan.DecisionScanner;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * Scanners against real bad rows and a real failing statement: a row that cannot be decided is
 * quarantined instead of heading every batch, and one scanner's failure leaves the others working.
 */
@Timeout(120)
class ScannerFailureTest {
  private static final Duration FIVE_MIN = Duration.ofMinutes(5);

  private Harness h;
  private RetryService service;
  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final List<Logger> watched =
      List.of(
          (Logger) LoggerFactory.getLogger(DecisionScanner.class),
          (Logger) LoggerFactory.getLogger(ScannerFailures.class));

  @BeforeEach
  void start() {
    h = new Harness("scanner_failures");
    // A one-second retention, so that the archive scan has work in the second test.
    service =
        h.start(
            Map.of("retry.retention", "1s"),
            new SettableClock(Instant.parse("2026-03-29T08:00:00Z")));
    logs.start();
    watched.forEach(l -> l.addAppender(logs));
  }

  @AfterEach
  void stop() {
    watched.forEach(l -> l.detachAppender(logs));
    h.close();
  }

  @Test
  void a_row_that_cannot_be_decided_is_quarantined_once_and_the_rest_of_the_batch_is_decided() {
    String task = h.define(Tasks.daily("poison").retry(new ImmediateRetry(3))).id();
    long poison = failed(task, "2026-03-01");
    long healthy = failed(task, "2026-03-02");
    // A window that ends before it starts: the retry policy cannot be applied to it.
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.WINDOW_END, Instant.parse("2026-02-01T00:00:00Z"))
        .where(TASK_INSTANCE.ID.eq(poison))
        .execute();

    for (int pass = 0; pass < 3; pass++) {
      service.scanOnce();
    }

    assertThat(h.status(healthy)).as("decided despite the poison row").isIn(RETRY_WAIT, PENDING);
    assertThat(h.status(poison)).as("left in its status").isEqualTo(FAILED);
    assertThat(h.operator.quarantined(10)).extracting(i -> i.id()).containsExactly(poison);
    assertThat(h.operator.events(poison))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.DECISION)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.reason())
                    .contains("quarantined by the decision scanner")
                    .contains("window end 2026-02-01T00:00:00Z is before start"));
    assertThat(service.metrics().quarantinedBy(DecisionScanner.SCANNER)).isEqualTo(1.0);
    assertThat(logs.list)
        .as("logged once, though three passes ran")
        .filteredOn(e -> e.getLevel() == Level.ERROR)
        .singleElement()
        .satisfies(e -> assertThat(e.getFormattedMessage()).contains("quarantined"));
    assertThat(h.operator.events(poison))
        .as("no pass after the first touched it")
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.TRANSITION && e.from() == FAILED)
        .isEmpty();

    // The operator repairs the window and clears the mark: the next pass decides it.
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.WINDOW_END, Instant.parse("2026-03-02T00:00:00Z"))
        .where(TASK_INSTANCE.ID.eq(poison))
        .execute();
    assertThat(h.operator.clearQuarantine(poison, "operator", "window repaired")).isTrue();
    service.scanOnce();
    assertThat(h.status(poison)).isIn(RETRY_WAIT, PENDING);
  }

  @Test
  void a_scanner_that_fails_every_pass_leaves_the_other_scans_working() {
    String task = h.define(Tasks.daily("domains").retry(new ImmediateRetry(3))).id();
    long lapsed = h.newInstance(task, "2026-03-01", FIVE_MIN).id();
    h.claim(lapsed, "worker-gone");
    h.db
        .dsl()
        .execute(
            "update task_instance set lease_until = now() - interval '1 second' where id = ?",
            lapsed);
    long failed = failed(task, "2026-03-02");
    long stranded = h.newInstance(task, "2026-03-03", FIVE_MIN).id();
    h.db
        .dsl()
        .update(TASK_INSTANCE)
        .set(TASK_INSTANCE.CREATED_AT, Instant.parse("2020-01-01T00:00:00Z"))
        .where(TASK_INSTANCE.ID.eq(stranded))
        .execute();
    long done = h.newInstance(task, "2026-03-04", FIVE_MIN).id();
    h.succeed(h.claim(done, "w"));
    h.db
        .dsl()
        .execute(
            "update task_instance set finished_at = now() - interval '1 hour' where id = ?", done);
    // A real failure of the first scanner's statement: the database refuses every move to TIMEOUT.
    h.db
        .dsl()
        .execute(
            "create function refuse_timeout() returns trigger language plpgsql as $$ begin"
                + " raise exception 'disk on fire'; end $$");
    h.db
        .dsl()
        .execute(
            "create trigger refuse_timeout before update on task_instance for each row"
                + " when (new.status = 'TIMEOUT') execute function refuse_timeout()");

    ScanReport first = service.scanOnce();
    ScanReport second = service.scanOnce();

    assertThat(first.complete()).isFalse();
    assertThat(first.timedOut()).isZero();
    assertThat(h.status(lapsed)).isEqualTo(RUNNING);
    assertThat(h.status(failed)).as("the decision scan ran").isIn(RETRY_WAIT, PENDING);
    assertThat(first.promoted() + second.promoted()).as("the due-retry scan ran").isEqualTo(1);
    assertThat(h.find(stranded).dispatchedAt()).as("the stranded scan ran").isNotNull();
    assertThat(first.archived()).as("the archive scan ran").isEqualTo(1);
    assertThat(service.metrics().failuresOf("timeout")).isEqualTo(2.0);
    assertThat(logs.list)
        .as("the first failure is logged, not every pass")
        .filteredOn(e -> e.getLevel() == Level.ERROR || e.getLevel() == Level.WARN)
        .extracting(ILoggingEvent::getFormattedMessage)
        .hasSize(2)
        .allSatisfy(m -> assertThat(m).contains("timeout scanner failed"));

    h.db.dsl().execute("drop trigger refuse_timeout on task_instance");
    ScanReport healed = service.scanOnce();

    assertThat(healed.timedOut()).isEqualTo(1);
    assertThat(h.status(lapsed)).isNotEqualTo(RUNNING).isNotEqualTo(DEAD);
    assertThat(logs.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(m -> assertThat(m).contains("timeout scanner works again after 2"));
  }

  /** A FAILED instance of {@code task} (one attempt, retryable). */
  private long failed(String task, String day) {
    long id = h.newInstance(task, day, FIVE_MIN).id();
    h.fail(h.claim(id, "w"), "boom", false);
    return id;
  }
}
