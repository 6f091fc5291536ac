package dev.carillon.faults;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Every fault the harness injected, with the wall-clock instant it took effect. */
final class FaultLog {
  enum Kind {
    KILL_WORKER,
    RESTART_WORKER,
    KILL_TRIGGER_LEADER,
    KILL_RETRY_LEADER,
    RESTART_SERVICE,
    FREEZE_WORKER,
    RESUME_WORKER,
    KAFKA_RESTART,
    POSTGRES_RESTART,
    /** The trigger leader's namespace cut from ZooKeeper (it keeps PostgreSQL and Kafka). */
    PARTITION_TRIGGER_ZK,
    /** A worker's namespace cut from PostgreSQL: its leases run out while it cannot renew them. */
    PARTITION_WORKER_PG,
    /** The retry leader's namespace cut from Kafka. */
    PARTITION_RETRY_KAFKA,
    /** A worker's namespace cut from Kafka: its consumer's partitions move to the others. */
    PARTITION_WORKER_KAFKA,
    /** The end of a partition: the cut port reachable again. */
    HEAL_PARTITION,
    /** The trigger leader SIGSTOPped past its ZooKeeper session. */
    FREEZE_TRIGGER_LEADER,
    /** SIGCONT to a frozen leader. */
    RESUME_LEADER,
    /** PostgreSQL crashed: SIGKILL to the postmaster (synchronous_commit on), started again. */
    POSTGRES_CRASH,
    /** A trigger whose clock is off (CARILLON_CLOCK_OFFSET) for the whole run. */
    CLOCK_SKEW,
    /**
     * A trigger that creates windows ahead of their fire time ({@code trigger.create-ahead}, the
     * entry's detail) for the whole run: a setting under the faults, not a fault.
     */
    CREATE_AHEAD,
    /**
     * A worker that claims instances due within {@code worker.claim-ahead} (the entry's detail) and
     * holds each until its fire time, for the whole run: a setting under the faults, not a fault.
     */
    CLAIM_AHEAD,
    /** PostgreSQL up again after a crash (crash recovery done). */
    POSTGRES_STARTED,
    /** PostgreSQL hung: every one of its processes SIGSTOPped (a long outage of the full run). */
    POSTGRES_HANG,
    /** SIGCONT to a hung PostgreSQL. */
    POSTGRES_THAWED,
    /** ZooKeeper stopped for long (the full run). */
    ZOOKEEPER_DOWN,
    /** ZooKeeper started again on the same port and data. */
    ZOOKEEPER_STARTED,
    /** Kafka stopped for long while the burst tasks fire (the full run). */
    KAFKA_DOWN,
    /** Kafka started again after {@link #KAFKA_DOWN}. */
    KAFKA_STARTED;

    /** Whether this kind is a fault rather than the recovery that follows one. */
    boolean isFault() {
      return this != RESTART_WORKER
          && this != CREATE_AHEAD
          && this != CLAIM_AHEAD
          && this != RESTART_SERVICE
          && this != RESUME_WORKER
          && this != HEAL_PARTITION
          && this != RESUME_LEADER
          && this != POSTGRES_STARTED
          && this != POSTGRES_THAWED
          && this != ZOOKEEPER_STARTED
          && this != KAFKA_STARTED;
    }

    /**
     * Whether this fault stops every writer's database work for a while (a crash or a hang), so
     * that a run it overlapped may lose its lease on any worker.
     */
    boolean isDatabaseOutage() {
      return this == POSTGRES_CRASH || this == POSTGRES_HANG;
    }

    /**
     * Whether this fault can make a worker lose its leases, so that another runs the window again
     * (or calls its effect again).
     */
    boolean losesWorkerLeases() {
      return this == KILL_WORKER
          || this == FREEZE_WORKER
          || this == PARTITION_WORKER_PG
          || this == PARTITION_WORKER_KAFKA;
    }

    /** The recovery that ends this fault for its target, if it lasts until one. */
    Kind endedBy() {
      return switch (this) {
        case FREEZE_WORKER -> RESUME_WORKER;
        case POSTGRES_CRASH, POSTGRES_RESTART -> POSTGRES_STARTED;
        case POSTGRES_HANG -> POSTGRES_THAWED;
        case ZOOKEEPER_DOWN -> ZOOKEEPER_STARTED;
        case KAFKA_DOWN -> KAFKA_STARTED;
        case PARTITION_TRIGGER_ZK,
            PARTITION_WORKER_PG,
            PARTITION_RETRY_KAFKA,
            PARTITION_WORKER_KAFKA ->
            HEAL_PARTITION;
        default -> null;
      };
    }
  }

  /**
   * One entry.
   *
   * @param target the service name (instance id), or the server for broker/database restarts
   */
  record Entry(Instant at, Kind kind, String target, String detail) {}

  private final List<Entry> entries = Collections.synchronizedList(new ArrayList<>());

  void add(Kind kind, String target, String detail) {
    add(Instant.now(), kind, target, detail);
  }

  /** Logs a fault at a given instant (tests of the invariants plant entries in the past). */
  void add(Instant at, Kind kind, String target, String detail) {
    entries.add(new Entry(at, kind, target, detail));
  }

  List<Entry> entries() {
    synchronized (entries) {
      return List.copyOf(entries);
    }
  }

  /** Faults (not recoveries) per kind. */
  Map<Kind, Integer> faultCounts() {
    Map<Kind, Integer> out = new TreeMap<>();
    for (Entry e : entries()) {
      if (e.kind().isFault()) {
        out.merge(e.kind(), 1, Integer::sum);
      }
    }
    return out;
  }
}
