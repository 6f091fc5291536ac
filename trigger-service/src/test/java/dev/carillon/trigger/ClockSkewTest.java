package dev.carillon.trigger;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.TaskStore;
import dev.carillon.testing.SkewedClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A trigger on a host whose clock is off ticks on PostgreSQL's time: 30 s fast it creates no window
 * before its fire time (by the database's clock, the one claims use), 30 s slow none late, and when
 * the host's clock steps back into line none twice and none lost.
 */
@Timeout(120)
class ClockSkewTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private final List<AutoCloseable> toClose = new ArrayList<>();
  private DbSettings db;
  private Database database;
  private OperatorStore instances;

  @BeforeEach
  void open() {
    db = TestDatabase.settings("clock_skew");
    database = Database.open(db);
    toClose.add(database);
    instances = new OperatorStore(database.dsl());
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
  void a_trigger_whose_clock_is_off_creates_no_window_early_late_or_twice() {
    SkewedClock host = new SkewedClock(Clock.systemUTC(), Duration.ofSeconds(30));
    TriggerService trigger = start(host);
    await("the fast trigger leads and creates windows")
        .atMost(WAIT)
        .until(() -> trigger.isLeader() && windows().size() >= 5);

    assertThat(createdBeforeTheirTime()).as("windows created before their fire time").isZero();
    assertThat(((Number) trigger.health().details().get("clockSkewMs")).longValue())
        .as("the database's clock minus this host's")
        .isCloseTo(-30_000L, within(1_000L));
    assertThat(trigger.health().details()).containsEntry("clockSkewed", true);
    assertThat(trigger.health().ready()).as("ticking on the database's time").isTrue();

    host.setSkew(Duration.ofSeconds(-30));
    Instant slowFrom = databaseNow();
    await("the slow trigger creates windows")
        .atMost(WAIT)
        .until(() -> windowsCreatedAfter(slowFrom).size() >= 5);
    for (Instance i : windowsCreatedAfter(slowFrom)) {
      assertThat(Duration.between(i.scheduledAt(), i.createdAt()))
          .as("fire lag of %s on a host 30 s slow", i.windowKey())
          .isLessThan(Duration.ofSeconds(2));
    }

    host.setSkew(Duration.ZERO);
    Instant correctedFrom = databaseNow();
    await("windows after the host's clock stepped back")
        .atMost(WAIT)
        .until(() -> windowsCreatedAfter(correctedFrom).size() >= 3);
    assertThat(trigger.health().details()).containsEntry("clockSkewed", false);

    List<Instance> rows = windows();
    assertThat(rows.stream().map(Instance::windowKey).distinct()).hasSize(rows.size());
    Instant first = rows.get(0).scheduledAt();
    Instant last = rows.get(rows.size() - 1).scheduledAt();
    assertThat(rows)
        .as("one window per second from %s to %s, none twice, none lost", first, last)
        .hasSize((int) Duration.between(first, last).toSeconds() + 1);
    assertThat(createdBeforeTheirTime()).as("windows created before their fire time").isZero();
  }

  private TriggerService start(Clock clock) {
    Map<String, String> c = new HashMap<>();
    c.put("db.url", db.url());
    c.put("db.user", db.user());
    c.put("db.password", db.password());
    c.put("db.pool-size", "4");
    c.put("kafka.bootstrap", DevStack.shared().kafkaBootstrap());
    c.put("zk.connect", DevStack.shared().zkConnect());
    c.put("zk.session-timeout", "3s");
    c.put("admin.port", "0");
    // The control-plane API is not what these tests look at: any port, no tokens.
    c.put("api.port", "0");
    c.put("api.insecure-local", "true");
    c.put("api.bind-address", "127.0.0.1");
    c.put("instance.id", "skewed");
    // Created up front, as a deployment does (the services only check their topics).
    String topic = "skew-" + UUID.randomUUID();
    DevStack.shared().createTopic(topic, 2);
    c.put("trigger.topic", topic);
    c.put("kafka.instances-partitions", "2");
    TriggerService s = TriggerService.start(Config.of(c), clock);
    toClose.add(s);
    return s;
  }

  /** Rows whose insert (its transaction's start, database time) came before their fire time. */
  private int createdBeforeTheirTime() {
    return database
        .dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE
                .TASK_ID
                .eq("beat")
                .and(TASK_INSTANCE.CREATED_AT.lt(TASK_INSTANCE.SCHEDULED_AT)));
  }

  private Instant databaseNow() {
    return database
        .dsl()
        .select(DSL.field("clock_timestamp()", SQLDataType.INSTANT))
        .fetchSingle()
        .value1();
  }

  private List<Instance> windowsCreatedAfter(Instant t) {
    return windows().stream().filter(i -> i.createdAt().isAfter(t)).toList();
  }

  private List<Instance> windows() {
    List<Instance> rows = new ArrayList<>(instances.list("beat", null, null, 100_000));
    rows.sort(Comparator.comparing(Instance::scheduledAt));
    return rows;
  }
}
