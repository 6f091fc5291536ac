package dev.carillon.retry;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.testsupport.Tasks;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A retry leader deposed while a scanner's write is stuck writes nothing when it resumes: the write
 * carries its epoch, which the successor replaced. The write is held as in the trigger's test, by a
 * {@code SHARE} lock on {@code task_instance} that the timeout scanner's update waits for.
 */
@Timeout(120)
class LeaderFencingTest {
  private static final Duration WAIT = Duration.ofSeconds(40);

  @Test
  void a_leader_deposed_while_its_scan_is_stuck_writes_nothing_when_it_resumes() throws Exception {
    try (Harness h = new Harness("retry_fencing")) {
      // The stuck write must outlast the takeover; the default 15s could cancel it.
      Map<String, String> slow =
          Map.of(
              "db.statement-timeout",
              "60s",
              "db.socket-timeout",
              "90s",
              "zk.session-timeout",
              "3s");
      RetryService a = h.start(with(slow, "retry-a"), Clock.systemUTC());
      RetryService b = h.start(with(slow, "retry-b"), Clock.systemUTC());
      String task = h.define(Tasks.daily("lapsed")).id();
      long id = h.newInstance(task, "2026-03-01", Duration.ofMinutes(5)).id();
      h.claim(id, "worker-gone");
      h.db
          .dsl()
          .execute(
              "update task_instance set lease_until = now() - interval '1 second' where id = ?",
              id);

      CompletableFuture<ScanReport> stuck;
      try (Connection lock =
              DriverManager.getConnection(h.dbUrl, h.stack.dbUser(), h.stack.dbPassword());
          Statement s = lock.createStatement()) {
        lock.setAutoCommit(false);
        s.execute("lock table task_instance in share mode");
        stuck = CompletableFuture.supplyAsync(a::scanOnce);
        await("a's timeout scan waits for the lock inside its update")
            .atMost(WAIT)
            .until(() -> waitingUpdates(h) >= 1);
        long eventsOfA = eventsBy(h, "retry:retry-a");
        long aEpoch = a.term().current().orElseThrow().epoch();

        expireSession(h, a);
        await("b takes over").atMost(WAIT).until(b::isLeader);
        ScanReport first = b.scanOnce(); // takes b's epoch; the row is locked by a's scan
        assertThat(first.complete()).isTrue();
        assertThat(b.term().current().orElseThrow().epoch()).isGreaterThan(aEpoch);

        lock.commit();

        ScanReport aReport = stuck.get(30, TimeUnit.SECONDS);
        assertThat(aReport.complete()).as("a's pass ended at the refused write").isFalse();
        assertThat(a.term().fencedWrites()).isGreaterThanOrEqualTo(1);
        assertThat(eventsBy(h, "retry:retry-a"))
            .as("events written by the deposed leader after it was deposed")
            .isEqualTo(eventsOfA);
      }

      await("b times the lapsed run out")
          .atMost(WAIT)
          .until(
              () -> {
                b.scanOnce();
                return h.status(id) == InstanceStatus.DEAD;
              });
      assertThat(h.operator.events(id))
          .filteredOn(e -> e.kind() == InstanceEvent.Kind.TRANSITION && e.from() != null)
          .filteredOn(e -> e.from() != InstanceStatus.PENDING)
          .extracting(InstanceEvent::actor)
          .containsOnly("retry:retry-b");
      assertThat(h.transitionsTo(id, InstanceStatus.TIMEOUT)).hasSize(1);
    }
  }

  private static Map<String, String> with(Map<String, String> base, String id) {
    Map<String, String> c = new java.util.HashMap<>(base);
    c.put("instance.id", id);
    return c;
  }

  private static long eventsBy(Harness h, String actor) {
    return h.db.dsl().fetchCount(INSTANCE_EVENT, INSTANCE_EVENT.ACTOR.eq(actor));
  }

  private static long waitingUpdates(Harness h) {
    return h.db
        .dsl()
        .fetchOne(
            "select count(*) from pg_stat_activity where datname = current_database()"
                + " and wait_event_type = 'Lock' and query ilike 'update task_instance%'")
        .get(0, Long.class);
  }

  /** Expires the service's ZooKeeper session on the server (see LeaderElectionTest). */
  private static void expireSession(Harness h, RetryService service) throws Exception {
    ZooKeeper zk = service.curator().getZookeeperClient().getZooKeeper();
    ZooKeeper twin =
        new ZooKeeper(
            h.stack.zkConnect(), 3_000, event -> {}, zk.getSessionId(), zk.getSessionPasswd());
    try {
      await("the twin session connects").atMost(WAIT).until(() -> twin.getState().isConnected());
    } finally {
      twin.close();
    }
  }
}
