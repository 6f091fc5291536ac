package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.carillon.devstack.DevStack;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.schedule.TriggerCursor;
import dev.carillon.model.worker.Serves;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The grant matrix of the service roles (R__service_roles.sql): each role runs its service's
 * statements through the real stores on its own connection, and PostgreSQL refuses it the others
 * (SQLSTATE 42501). The schema is migrated by the owner, as the migrate step does; the roles log in
 * with passwords the migrate step sets ({@link Schema#enableLogin}).
 */
class ServiceRolesTest {
  /** A worker that serves the default queue with the handler of {@code Tasks.daily}. */
  private static final Serves SERVES_ALL = new Serves(Set.of("default"), Set.of("noop"));

  private static final String PREFIX = Schema.DEFAULT_ROLE_PREFIX;
  private static final String INSUFFICIENT_PRIVILEGE = "42501";
  private static final Duration TIMEOUT = Duration.ofMinutes(5);

  private static Database owner;
  private static final Map<DbRole, Database> as = new EnumMap<>(DbRole.class);
  private static TaskStore ownerTasks;
  private static WindowStore ownerWindows;
  private static LeaseStore ownerLeases;
  private static OperatorStore ownerOperator;

  @BeforeAll
  static void migrateAndLogIn() {
    DevStack stack = DevStack.shared();
    DbSettings settings =
        new DbSettings(stack.createDatabase("roles"), stack.dbUser(), stack.dbPassword(), 4);
    owner = Database.open(settings, DevStack.SESSION_TIME_ZONE_SQL);
    for (DbRole role : DbRole.values()) {
      String name = role.roleName(PREFIX);
      Schema.enableLogin(owner.dataSource(), name, "pw-" + role.key() + "-0123456789");
      // The read-only role's session default refuses writes before any grant is looked at; turned
      // off here so that this test proves the grants themselves refuse them.
      String init =
          DevStack.SESSION_TIME_ZONE_SQL
              + (role == DbRole.READONLY ? "; SET default_transaction_read_only = off" : "");
      as.put(
          role,
          Database.connect(
              settings.withLogin(name, "pw-" + role.key() + "-0123456789").withPoolSize(2), init));
    }
    ownerTasks = new TaskStore(owner.dsl());
    ownerWindows = new WindowStore(owner.dsl());
    ownerLeases = new LeaseStore(owner.dsl());
    ownerOperator = new OperatorStore(owner.dsl());
  }

  @AfterAll
  static void close() {
    as.values().forEach(Database::close);
    owner.close();
  }

  private static DSLContext dsl(DbRole role) {
    return as.get(role).dsl();
  }

  private static void refused(ThrowingCallable call) {
    Throwable t = catchThrowable(call);
    assertThat(t).as("refused by PostgreSQL").isInstanceOf(DataAccessException.class);
    assertThat(((DataAccessException) t).sqlState())
        .as("SQLSTATE of %s", t.getMessage())
        .isEqualTo(INSUFFICIENT_PRIVILEGE);
  }

  /** A task, made by the owner. */
  private static void task(String id) {
    ownerTasks.applyAll(List.of(Tasks.daily(id).build()));
  }

  /** A PENDING instance, made by the owner. */
  private static Instance newPending(String task, String day) {
    return ownerWindows.create(List.of(Tasks.pending(task, day, TIMEOUT)), "test").get(0);
  }

  /** A task and one PENDING instance of it, made by the owner. */
  private static Instance pending(String task, String day) {
    task(task);
    return newPending(task, day);
  }

  /** A fresh leader epoch of {@code service}, taken by the owner (for another role's statement). */
  private static Fence ownerFence(String service) {
    return new EpochStore(owner.dsl()).begin(service, "owner");
  }

  /** An instance claimed and ended with {@code outcome} by the owner; as read afterwards. */
  private static Instance ended(String task, String day, Outcome outcome) {
    Instance claimed = ownerLeases.claim(List.of(newPending(task, day).id()), "w").get(0);
    ownerLeases.complete(new Lease(claimed.id(), claimed.attempt()), outcome, "w");
    return ownerOperator.find(claimed.id()).orElseThrow();
  }

  @Test
  void the_trigger_creates_instances_cursors_and_offsets_and_may_not_change_definitions() {
    DbRole r = DbRole.TRIGGER;
    task("trig-a");
    TriggerQueries queries = new TriggerQueries(dsl(r));
    WindowStore windows = new WindowStore(dsl(r));
    DependencyQueries dependencies = new DependencyQueries(dsl(r));
    ConditionStore conditions = new ConditionStore(dsl(r));
    // A new leader takes its epoch on its own connection; every leader-only write carries it.
    Fence fence = new EpochStore(dsl(r)).begin("trigger", "trigger:t");
    assertThatCode(
            () -> {
              queries.taskFingerprint();
              queries.taskStamps();
              queries.loadTasks(List.of("trig-a"));
              queries.liveInstances(List.of("trig-a"));
              queries.windows(List.of(Map.entry("trig-a", "2026-01-01")));
              new TaskStore(dsl(r)).loadAll();
              new TaskStore(dsl(r)).cursors();
              List<Instance> created =
                  windows.commitTick(
                      List.of(Tasks.pending("trig-a", "2026-01-01", TIMEOUT)),
                      List.of(new Decision("trig-a", "2025-12-31", null, "trigger:t", "skipped")),
                      Map.of(
                          "trig-a",
                          TriggerCursor.at(
                              Instant.parse("2026-01-02T00:00:00Z"), ZoneId.of("UTC"))),
                      "trigger:t",
                      fence);
              windows.undispatched(Duration.ZERO, Duration.ofMinutes(1), 10);
              assertThat(windows.markDispatched(List.of(created.get(0).id()))).isEqualTo(1);
              dependencies.completionsAfter(0, 10);
              dependencies.lateCompletions(0, 100, List.of(), 10);
              dependencies.dbNow();
              dependencies.newestCompletion();
              dependencies.saveOffset("dependency:events", 7, fence);
              assertThat(dependencies.offset("dependency:events")).isEqualTo(7);
              conditions.save(
                  "trig-a",
                  new ConditionStore.State("2026-01-01", Instant.parse("2026-01-01T00:00:00Z"), 1),
                  fence);
              conditions.all();
            })
        .doesNotThrowAnyException();
    Instance done = ended("trig-a", "2026-02-01", Outcome.success("ok", false, null));
    assertThat(windows.rerun(done, "trigger:t", "upstream ran again", fence)).isPresent();

    refused(() -> new TaskStore(dsl(r)).applyAll(List.of(Tasks.daily("trig-b").build())));
    refused(() -> new TaskStore(dsl(r)).setPaused("trig-a", true));
    ended("trig-a", "2026-02-02", Outcome.success("ok", false, null));
    Fence retryFence = ownerFence("retry");
    refused(() -> new ArchiveStore(dsl(r)).archiveFinished(Duration.ZERO, 10, retryFence));
    refused(() -> dsl(r).execute("DELETE FROM task_instance WHERE id = {0}", DSL.val(done.id())));
    refused(() -> dsl(r).execute("CREATE TABLE trigger_was_here (id int)"));
    // The grant on leader_epoch is per table; its row policy keeps the trigger to its own row.
    refused(() -> new EpochStore(dsl(r)).begin("retry", "trigger:t"));
    assertThat(
            dsl(r)
                .execute(
                    "UPDATE leader_epoch SET epoch = epoch + 1 WHERE service = {0}",
                    DSL.val("retry")))
        .as("retry epoch rows the trigger role could bump")
        .isZero();
    assertThat(new EpochStore(dsl(r)).current("retry"))
        .as("the retry epoch, as the trigger sees it")
        .isEmpty();
    assertThat(new EpochStore(owner.dsl()).current("retry").orElseThrow().fence())
        .as("the retry epoch, untouched by the trigger role")
        .isEqualTo(retryFence);
  }

  @Test
  void the_worker_claims_renews_ends_and_releases_and_may_change_nothing_else() {
    DbRole r = DbRole.WORKER;
    Instance a = pending("work-a", "2026-01-01");
    Instance b = newPending("work-a", "2026-01-02");
    LeaseStore leases = new LeaseStore(dsl(r));
    List<ClaimedInstance> claimed =
        leases.claimForRun(List.of(a.id(), b.id()), "worker-1", SERVES_ALL);
    assertThat(claimed).hasSize(2);
    Lease la = new Lease(a.id(), 1);
    Lease lb = new Lease(b.id(), 1);
    assertThat(leases.heartbeat("worker-1", List.of(la, lb)))
        .containsExactlyInAnyOrder(a.id(), b.id());
    assertThat(
            leases.completeAll(
                List.of(new AttemptEnd(la, Outcome.success("ok", false, null))), "worker-1"))
        .containsExactly(la);
    assertThat(leases.release(lb, "worker-1", "shutting down")).isTrue();
    assertThat(leases.markDispatched(List.of(b.id()))).isEqualTo(1);
    assertThat(leases.claimStates(List.of(a.id()))).containsKey(a.id());
    assertThat(new TaskStore(dsl(r)).runSpecs(List.of("work-a"))).containsKey("work-a");

    // Plugins run in this process: the role must not let them touch definitions, create work,
    // stretch their own timeout or reset the retry count.
    refused(() -> new TaskStore(dsl(r)).applyAll(List.of(Tasks.daily("work-b").build())));
    refused(() -> new TaskStore(dsl(r)).setPaused("work-a", true));
    refused(
        () ->
            new WindowStore(dsl(r))
                .create(List.of(Tasks.pending("work-a", "2026-01-03", TIMEOUT)), "worker-1"));
    refused(
        () ->
            dsl(r)
                .execute(
                    "UPDATE task_instance SET timeout_ms = 86400000 WHERE id = {0}",
                    DSL.val(b.id())));
    refused(
        () ->
            dsl(r)
                .execute(
                    "UPDATE task_instance SET retry_count = 0 WHERE id = {0}", DSL.val(b.id())));
    Instance failed = ended("work-a", "2026-01-04", Outcome.failure("boom", false));
    Fence retryFence = ownerFence("retry");
    new RetryStore(owner.dsl())
        .scheduleRetry(
            failed, Instant.parse("2020-01-01T00:00:00Z"), 1L, "retry:t", "due", retryFence);
    refused(() -> new RetryStore(dsl(r)).promoteDueRetries(10, "worker-1", retryFence));
    refused(() -> new EpochStore(dsl(r)).begin("retry", "worker-1"));
    refused(() -> dsl(r).execute("DELETE FROM instance_event WHERE false"));
    refused(() -> new OperatorStore(dsl(r)).events(a.id()));
  }

  @Test
  void the_retry_service_scans_decides_republishes_and_archives_but_creates_nothing() {
    DbRole r = DbRole.RETRY;
    task("retry-a");
    Instance failed = ended("retry-a", "2026-01-01", Outcome.failure("boom", false));
    Instance dead = ended("retry-a", "2026-01-02", Outcome.failure("boom", false));
    Instance old = ended("retry-a", "2026-01-03", Outcome.success("ok", false, null));
    Instance stranded = newPending("retry-a", "2026-01-04");
    Instance poison = ended("retry-a", "2026-01-06", Outcome.failure("boom", false));
    RetryStore retries = new RetryStore(dsl(r));
    Fence fence = new EpochStore(dsl(r)).begin("retry", "retry:t");
    assertThatCode(
            () -> {
              retries.expireLeases(10, "retry:t", fence);
              List<Instance> waiting = retries.awaitingDecision(100);
              assertThat(waiting).extracting(Instance::id).contains(failed.id(), dead.id());
              Instance f = waiting.stream().filter(i -> i.id() == failed.id()).findFirst().get();
              Instance d = waiting.stream().filter(i -> i.id() == dead.id()).findFirst().get();
              assertThat(
                      retries.scheduleRetry(
                          f, Instant.parse("2020-01-01T00:00:00Z"), 1L, "retry:t", "again", fence))
                  .isTrue();
              assertThat(retries.markDead(d, 1L, "retry:t", "no more", false, fence)).isTrue();
              // The DEAD-alert outbox: read what waits, stamp what the webhook acknowledged.
              assertThat(retries.unalertedDead(10))
                  .extracting(a -> a.instance().id())
                  .contains(dead.id());
              assertThat(retries.markAlerted(dead.id(), fence)).isTrue();
              retries.countUnalerted();
              Instance p = waiting.stream().filter(i -> i.id() == poison.id()).findFirst().get();
              assertThat(
                      retries.quarantine(p, "decision", "IllegalStateException", "retry:t", fence))
                  .isTrue();
              assertThat(retries.promoteDueRetries(10, "retry:t", fence))
                  .extracting(Instance::id)
                  .contains(failed.id());
              retries.countDueRetries();
              retries.stranded(Duration.ZERO, Duration.ofMinutes(1), 10);
              List<Instance> mine =
                  retries.claimForDispatch(
                      List.of(stranded.id()), Duration.ZERO, Duration.ofMinutes(1), fence);
              retries.unmarkDispatched(List.of(stranded.id()), fence);
              retries.markDispatched(List.of(stranded.id()), fence);
              assertThat(mine).isNotNull();
              new TaskStore(dsl(r)).find("retry-a");
              assertThat(new ArchiveStore(dsl(r)).archiveFinished(Duration.ZERO, 10, fence))
                  .contains(old.id());
            })
        .doesNotThrowAnyException();

    refused(() -> new TaskStore(dsl(r)).applyAll(List.of(Tasks.daily("retry-b").build())));
    refused(() -> new EpochStore(dsl(r)).begin("trigger", "retry:t"));
    refused(
        () ->
            new WindowStore(dsl(r))
                .create(List.of(Tasks.pending("retry-a", "2026-01-05", TIMEOUT)), "retry:t"));
    refused(
        () ->
            dsl(r)
                .execute(
                    "UPDATE task_instance SET timeout_ms = 1 WHERE id = {0}",
                    DSL.val(stranded.id())));
  }

  @Test
  void the_api_role_applies_pauses_backfills_cancels_and_reruns_but_never_deletes() {
    DbRole r = DbRole.API;
    TaskStore tasks = new TaskStore(dsl(r));
    OperatorStore operator = new OperatorStore(dsl(r));
    assertThat(tasks.applyAll(List.of(Tasks.daily("api-a").build()))).containsExactly("api-a");
    assertThat(tasks.setPaused("api-a", true)).isTrue();
    Instance manual =
        new WindowStore(dsl(r))
            .create(List.of(Tasks.pendingKey("api-a", "manual-1", TIMEOUT)), "api:alice")
            .get(0);
    Instance cancelled = operator.cancel(manual, "api:alice", "not needed").orElseThrow();
    assertThat(cancelled.status()).isEqualTo(InstanceStatus.CANCELLED);
    assertThat(operator.rerun(cancelled, "api:alice", "needed after all")).isPresent();
    assertThat(operator.quarantined(10)).extracting(Instance::id).doesNotContain(manual.id());
    assertThat(operator.clearQuarantine(manual.id(), "api:alice", "not quarantined")).isFalse();
    assertThat(operator.events(manual.id())).isNotEmpty();
    operator.list("api-a", null, null, 10);
    operator.countByStatus("api-a");
    tasks.loadAll();
    tasks.cursors();

    ended("api-a", "2026-01-01", Outcome.success("ok", false, null));
    refused(() -> new ArchiveStore(dsl(r)).archiveFinished(Duration.ZERO, 10, ownerFence("retry")));
    refused(() -> new EpochStore(dsl(r)).begin("trigger", "api:alice"));
    refused(() -> dsl(r).execute("DELETE FROM task_definition WHERE task_id = 'api-a'"));
    refused(() -> dsl(r).execute("TRUNCATE instance_event"));
    refused(() -> dsl(r).execute("CREATE TABLE api_was_here (id int)"));
  }

  @Test
  void the_read_only_role_reads_everything_and_changes_nothing_anywhere() {
    DbRole r = DbRole.READONLY;
    Instance p = pending("ro-a", "2026-01-01");
    OperatorStore operator = new OperatorStore(dsl(r));
    assertThat(operator.find(p.id())).isPresent();
    assertThat(operator.events(p.id())).isNotEmpty();
    assertThat(new TaskStore(dsl(r)).loadAll()).isNotEmpty();
    new EventQueries(dsl(r)).after(0, 10);
    new TriggerQueries(dsl(r)).taskFingerprint();

    refused(() -> new TaskStore(dsl(r)).applyAll(List.of(Tasks.daily("ro-b").build())));
    refused(() -> new LeaseStore(dsl(r)).claim(List.of(p.id()), "intruder"));
    refused(() -> operator.cancel(p, "intruder", "no"));
    for (String table : tables()) {
      refused(() -> dsl(r).execute("DELETE FROM {0} WHERE false", DSL.name(table)));
      refused(() -> dsl(r).execute("TRUNCATE {0}", DSL.name(table)));
      refused(
          () -> dsl(r).execute("INSERT INTO {0} SELECT * FROM {0} WHERE false", DSL.name(table)));
    }
  }

  @Test
  void the_grants_are_exactly_the_documented_matrix() {
    // The table in docs/security.md, role by role: anything more is a grant nobody asked for.
    Map<DbRole, Map<String, String>> expected = new EnumMap<>(DbRole.class);
    expected.put(
        DbRole.TRIGGER,
        Map.of(
            "task_definition", "SELECT",
            "task_definition_change", "SELECT",
            "task_instance", "INSERT SELECT UPDATE",
            "instance_event", "INSERT SELECT UPDATE(2 columns)",
            "trigger_cursor", "INSERT SELECT UPDATE",
            "trigger_offset", "INSERT SELECT UPDATE",
            "condition_state", "INSERT SELECT UPDATE",
            "worker_presence", "SELECT",
            "worker_capability", "SELECT",
            "leader_epoch", "INSERT SELECT UPDATE"));
    expected.put(
        DbRole.WORKER,
        Map.of(
            "task_definition", "SELECT",
            "task_instance", "SELECT UPDATE(15 columns)",
            "instance_event", "INSERT SELECT(1 columns)",
            "worker_presence", "DELETE INSERT SELECT UPDATE",
            "worker_capability", "DELETE INSERT SELECT",
            "instance_checkpoint", "INSERT SELECT UPDATE",
            "instance_effect", "INSERT SELECT UPDATE"));
    expected.put(
        DbRole.RETRY,
        Map.ofEntries(
            Map.entry("task_definition", "SELECT"),
            Map.entry("task_instance", "DELETE SELECT UPDATE(12 columns)"),
            Map.entry("instance_event", "DELETE INSERT SELECT UPDATE(2 columns)"),
            Map.entry("task_instance_history", "INSERT SELECT"),
            Map.entry("instance_event_history", "INSERT SELECT"),
            Map.entry("worker_presence", "SELECT"),
            Map.entry("worker_capability", "SELECT"),
            Map.entry("instance_checkpoint", "DELETE SELECT"),
            Map.entry("instance_effect", "DELETE SELECT"),
            Map.entry("instance_checkpoint_history", "INSERT SELECT"),
            Map.entry("instance_effect_history", "INSERT SELECT"),
            Map.entry("retry_scan", "INSERT SELECT UPDATE"),
            Map.entry("leader_epoch", "INSERT SELECT UPDATE")));
    expected.put(
        DbRole.API,
        Map.ofEntries(
            Map.entry("task_definition", "INSERT SELECT UPDATE"),
            Map.entry("task_definition_change", "SELECT UPDATE"),
            Map.entry("task_event", "INSERT SELECT"),
            Map.entry("task_instance", "INSERT SELECT UPDATE"),
            Map.entry("instance_event", "INSERT SELECT UPDATE(2 columns)"),
            Map.entry("trigger_cursor", "SELECT"),
            Map.entry("trigger_offset", "SELECT"),
            Map.entry("condition_state", "SELECT"),
            Map.entry("task_instance_history", "SELECT"),
            Map.entry("instance_event_history", "SELECT"),
            Map.entry("worker_presence", "SELECT"),
            Map.entry("worker_capability", "SELECT"),
            Map.entry("instance_checkpoint", "DELETE SELECT"),
            Map.entry("instance_effect", "DELETE SELECT"),
            Map.entry("instance_checkpoint_history", "SELECT"),
            Map.entry("instance_effect_history", "SELECT"),
            Map.entry("retry_scan", "SELECT")));
    Map<String, String> everything = new TreeMap<>();
    for (String t : tables()) {
      if (!t.equals("flyway_schema_history")) {
        everything.put(t, "SELECT");
      }
    }
    expected.put(DbRole.READONLY, everything);
    for (DbRole role : DbRole.values()) {
      Map<String, String> want = new TreeMap<>(expected.get(role));
      want.put("flyway_schema_history", "SELECT");
      assertThat(grants(role.roleName(PREFIX))).as("grants of %s", role).isEqualTo(want);
    }
  }

  /** Every table of the schema. */
  private static List<String> tables() {
    return owner
        .dsl()
        .fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        .getValues(0, String.class);
  }

  /** Privileges of {@code role} as "PRIV PRIV UPDATE(n columns)", by table. */
  private static Map<String, String> grants(String role) {
    Map<String, Set<String>> byTable = new TreeMap<>();
    owner
        .dsl()
        .fetch(
            "SELECT table_name, privilege_type FROM information_schema.role_table_grants"
                + " WHERE grantee = {0} AND table_schema = 'public'",
            DSL.val(role))
        .forEach(
            rec ->
                byTable
                    .computeIfAbsent(rec.get(0, String.class), k -> new TreeSet<>())
                    .add(rec.get(1, String.class)));
    // Column grants of a privilege the role does not hold on the whole table.
    owner
        .dsl()
        .fetch(
            "SELECT c.table_name, c.privilege_type, count(*)"
                + " FROM information_schema.role_column_grants c"
                + " WHERE c.grantee = {0} AND c.table_schema = 'public' AND NOT EXISTS (SELECT 1"
                + " FROM information_schema.role_table_grants t WHERE t.grantee = c.grantee"
                + " AND t.table_name = c.table_name AND t.privilege_type = c.privilege_type)"
                + " GROUP BY c.table_name, c.privilege_type",
            DSL.val(role))
        .forEach(
            rec ->
                byTable
                    .computeIfAbsent(rec.get(0, String.class), k -> new TreeSet<>())
                    .add(rec.get(1, String.class) + "(" + rec.get(2, Long.class) + " columns)"));
    Map<String, String> out = new TreeMap<>();
    byTable.forEach((t, privileges) -> out.put(t, String.join(" ", privileges)));
    return out;
  }
}
