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
    POSTGRES_RESTART;

    /** Whether this kind is a fault rather than the recovery that follows one. */
    boolean isFault() {
      return this != RESTART_WORKER && this != RESTART_SERVICE && this != RESUME_WORKER;
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
