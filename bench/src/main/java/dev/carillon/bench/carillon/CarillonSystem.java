package dev.carillon.bench.carillon;

import dev.carillon.bench.BenchOptions;
import dev.carillon.bench.BenchSystem;
import dev.carillon.bench.RunContext;
import dev.carillon.bench.SchedulerUnderTest;
import dev.carillon.bench.Versions;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.trigger.TriggerSettings;
import dev.carillon.worker.WorkerService;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;

/**
 * Carillon itself: its trigger, one worker and its retry service, started in-process against the
 * dev stack's PostgreSQL, Kafka and ZooKeeper, each from the same {@code Config} keys a deployment
 * uses. Jobs travel Carillon's real path: trigger tick (batched insert) → Kafka → worker claim
 * batch → run → completion.
 */
public final class CarillonSystem implements BenchSystem {
  private final java.time.Duration createAhead;
  private final java.time.Duration claimAhead;

  /** Carillon with its defaults. */
  public CarillonSystem() {
    this(java.time.Duration.ZERO, java.time.Duration.ZERO);
  }

  /**
   * Carillon with {@code trigger.create-ahead} and {@code worker.claim-ahead}; a non-zero one is
   * named in the system's display name, so that its runs stay apart from the default's in the
   * report and the points file.
   */
  public CarillonSystem(java.time.Duration createAhead, java.time.Duration claimAhead) {
    this.createAhead = java.util.Objects.requireNonNull(createAhead, "createAhead");
    this.claimAhead = java.util.Objects.requireNonNull(claimAhead, "claimAhead");
  }

  @Override
  public String id() {
    return "carillon";
  }

  @Override
  public String displayName() {
    return "Carillon"
        + (createAhead.isZero()
            ? ""
            : ", create-ahead " + dev.carillon.model.Durations.format(createAhead))
        + (claimAhead.isZero()
            ? ""
            : ", claim-ahead " + dev.carillon.model.Durations.format(claimAhead));
  }

  @Override
  public String version() {
    return "Carillon "
        + Versions.of("dev.carillon", "trigger-service")
        + " (Kafka clients "
        + kafkaVersion()
        + ")";
  }

  /** Kafka's jar carries its version in a resource rather than in Maven metadata. */
  private static String kafkaVersion() {
    try (InputStream in =
        org.apache.kafka.clients.producer.KafkaProducer.class.getResourceAsStream(
            "/kafka/kafka-version.properties")) {
      if (in == null) {
        return "?";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "?");
    } catch (IOException e) {
      return "?";
    }
  }

  @Override
  public boolean servesApi() {
    return true;
  }

  @Override
  public List<String> settings(BenchOptions o) {
    return List.of(
        "in-process trigger, one worker and the retry service, started from `Config.of(...)`"
            + " maps; the services migrate the run's fresh database (Flyway) themselves",
        "trigger: `trigger.tick-interval` "
            + TriggerSettings.DEFAULT_TICK_INTERVAL.toMillis()
            + " ms (default; ticks aligned to whole seconds), commit chunks of at most 2,000"
            + " rows on two connections from 200 rows (instances and their CREATED events in one"
            + " statement, then the cursors), each handed to the dispatcher as it commits,"
            + " publish batches of 1,000, producer `linger.ms` "
            + InstancePublisher.LINGER.toMillis()
            + ", `acks=all`, idempotent",
        "worker: `worker.concurrency` "
            + o.threads()
            + " (run threads, reused), `worker.prefetch` "
            + CarillonRun.PREFETCH
            + " (a claim may take up to concurrency + prefetch instances, which wait on the"
            + " worker for a run thread); consumer `max.poll.records` "
            + (o.threads() + CarillonRun.PREFETCH)
            + "; records beyond the free capacity wait in the consumer; per group one claim"
            + " statement (`WITH claimed AS (UPDATE ... FROM unnest(ids, expected) ..."
            + " RETURNING <the 10 columns a run needs>), claim_events AS (INSERT ...) SELECT"
            + " ...`; 100 or more ids as two halves on two connections at once) and one `SELECT`"
            + " of the tasks' handler and params beside it,"
            + " poll timeout "
            + WorkerService.POLL_TIMEOUT.toMillis()
            + " ms; ends written in groups (one statement with their events for all the ends"
            + " ready at once); the worker's sessions plan every statement as a primary-key probe"
            + " per id (custom plans, no sequential scan, hash or merge join:"
            + " `Database.PRIMARY_KEY_PLANS`)",
        "pools (HikariCP): worker "
            + o.poolSize()
            + " (threads + 2, as every system), trigger "
            + CarillonRun.TRIGGER_POOL
            + ", retry service "
            + CarillonRun.RETRY_POOL
            + "; the bench's own setup/count connections "
            + CarillonRun.BENCH_POOL,
        "Kafka: a fresh topic per run (`trigger.topic`, `worker.topic`, `retry.instances-topic`),"
            + " "
            + CarillonRun.PARTITIONS
            + " partitions, replication 1; a fresh consumer group per run",
        "services log at WARN like the peers (at INFO the worker writes two lines per instance)",
        "API (every run; only the api workload calls it): served by the trigger as in production"
            + " (`api.*` defaults: 32 request threads, the API's own pool of 4 connections apart"
            + " from the tick's), a tokens file of "
            + CarillonRun.API_TOKENS
            + " viewer tokens, `api.rate.per-second` and `api.rate.burst` "
            + CarillonRun.API_RATE
            + " per token (so the api workload measures answers, not the limiter's 429s)",
        "tasks: window EVERY_FIRE, overlap ALLOW (the peers run every fire whatever the"
            + " previous one is doing; Carillon's default SKIP would record late fires SKIPPED)",
        "burst: one task per instance (cron with a year, e.g. `5 30 12 30 11 ? 2026`, window"
            + " `EVERY_FIRE`, zone UTC), applied with `TaskStore.applyAll` and their trigger"
            + " cursors started before the due instant T (not measured); one tick at T creates"
            + " every instance. Stages from the rows: tick insert = T → last `created_at`;"
            + " publish = first `created_at` → last `dispatched_at` (only rows stamped before"
            + " their claim carry it); claim = first `created_at` → last `started_at`; complete ="
            + " first `started_at` → last `finished_at`",
        "steady: one task per planned task with cron `s/period * * * * ?`; Carillon's cron fires"
            + " on whole seconds, so the plan's first fires are put on whole seconds (each second's"
            + " "
            + o.rate()
            + " fires share that second's instant) and the expected fires are exactly the cron's;"
            + " fires of the cron before a task's first planned fire or after its last (a cron"
            + " cannot stop after k fires) run but are not recorded");
  }

  @Override
  public SchedulerUnderTest open(RunContext ctx) {
    return new CarillonRun(ctx);
  }
}
