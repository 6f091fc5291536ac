package dev.carillon.trigger;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.EpochStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A trigger leader deposed while its tick is stuck before the commit writes nothing when it
 * resumes: its commit carries its epoch, which the successor replaced.
 *
 * <p>The tick is held where a frozen process would be: past its last local leadership check, with
 * its statement sent. The test holds a {@code SHARE} lock on {@code task_instance}, which the
 * tick's insert must wait for before it evaluates anything, and expires the leader's ZooKeeper
 * session meanwhile; the standby takes over and takes a newer epoch. Released, the old tick's
 * statements see that epoch and change no row.
 */
@Timeout(120)
class LeaderFencingTest {
  private static final Duration WAIT = Duration.ofSeconds(40);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private final String topic = "fencing-" + UUID.randomUUID().toString().substring(0, 8);
  private DbSettings db;
  private Database database;
  private OperatorStore instances;

  @BeforeEach
  void open() {
    db = TestDatabase.settings("trigger_fencing");
    database = Database.open(db);
    toClose.add(database);
    instances = new OperatorStore(database.dsl());
    DevStack.shared().createTopic(topic, 2);
    new TaskStore(database.dsl())
        .applyAll(List.of(Tasks.everySeconds("beat", 1).overlap(OverlapPolicy.ALLOW).build()));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = toClose.size() - 1; i >= 0; i--) {
      toClose.get(i).close();
    }
  }

  @Test
  void a_leader_deposed_while_its_tick_is_stuck_writes_nothing_when_it_resumes() throws Exception {
    TriggerService a = start("a");
    await("a leads and ticks").atMost(WAIT).until(() -> a.isLeader() && windows().size() >= 2);
    TriggerService b = start("b");
    long aEpoch = a.term().current().orElseThrow().epoch();

    try (Connection lock = DriverManager.getConnection(db.url(), db.user(), db.password());
        Statement s = lock.createStatement()) {
      lock.setAutoCommit(false);
      s.execute("lock table task_instance in share mode");
      await("a's tick waits for the lock inside its commit")
          .atMost(WAIT)
          .until(() -> waitingInserts() >= 1);
      long eventsOfA = eventsBy("trigger:a");

      expireSession(a);
      await("b takes over and takes a newer epoch")
          .atMost(WAIT)
          .until(() -> b.isLeader() && b.term().current().isPresent());
      assertThat(b.term().current().orElseThrow().epoch()).isGreaterThan(aEpoch);
      assertThat(a.isLeader()).isFalse();

      lock.commit(); // a's stuck tick and b's first one go on

      await("a's stuck tick was refused by the database")
          .atMost(WAIT)
          .until(() -> a.term().fencedWrites() >= 1);
      int atRelease = windows().size();
      await("b creates windows").atMost(WAIT).until(() -> windows().size() >= atRelease + 3);
      assertThat(eventsBy("trigger:a"))
          .as("events written by the deposed leader after it was deposed")
          .isEqualTo(eventsOfA);
    }

    List<Instance> rows = windows();
    assertThat(rows.stream().map(Instance::windowKey).distinct()).hasSize(rows.size());
    Instant first = rows.get(0).scheduledAt();
    Instant last = rows.get(rows.size() - 1).scheduledAt();
    assertThat(rows)
        .as("one window per second from %s to %s, none lost", first, last)
        .hasSize((int) Duration.between(first, last).toSeconds() + 1);
    assertThat(
            new EpochStore(database.dsl()).current(TriggerService.SERVICE).orElseThrow().holder())
        .isEqualTo("b");
    Instance newest = rows.get(rows.size() - 1);
    assertThat(instances.events(newest.id()))
        .filteredOn(e -> e.kind() == InstanceEvent.Kind.CREATED)
        .extracting(InstanceEvent::actor)
        .containsExactly("trigger:b");
  }

  private TriggerService start(String name) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    // The stuck tick must outlast the takeover; the default 15s could cancel it on a slow host.
    c.put("db.statement-timeout", "60s");
    c.put("db.socket-timeout", "90s");
    c.put("kafka.bootstrap", DevStack.shared().kafkaBootstrap());
    c.put("zk.connect", DevStack.shared().zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    // The control-plane API is not what these tests look at: any port, no tokens.
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("instance.id", name);
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    TriggerService s = TriggerService.start(Config.of(c), Clock.systemUTC());
    toClose.add(s);
    return s;
  }

  private List<Instance> windows() {
    List<Instance> rows = new ArrayList<>(instances.list("beat", null, null, 100_000));
    rows.sort(Comparator.comparing(Instance::scheduledAt));
    return rows;
  }

  private long eventsBy(String actor) {
    return database.dsl().fetchCount(INSTANCE_EVENT, INSTANCE_EVENT.ACTOR.eq(actor));
  }

  /** Sessions of this database waiting for a lock on an insert into task_instance. */
  private long waitingInserts() {
    return database
        .dsl()
        .fetchOne(
            "select count(*) from pg_stat_activity where datname = current_database()"
                + " and wait_event_type = 'Lock' and query ilike 'with%insert into task_instance%'")
        .get(0, Long.class);
  }

  /** Expires the service's ZooKeeper session on the server (see LeaderElectionTest). */
  private static void expireSession(TriggerService service) throws Exception {
    ZooKeeper zk = service.curator().getZookeeperClient().getZooKeeper();
    ZooKeeper twin =
        new ZooKeeper(
            DevStack.shared().zkConnect(),
            3_000,
            event -> {},
            zk.getSessionId(),
            zk.getSessionPasswd());
    try {
      await("the twin session connects").atMost(WAIT).until(() -> twin.getState().isConnected());
    } finally {
      twin.close();
    }
  }
}
