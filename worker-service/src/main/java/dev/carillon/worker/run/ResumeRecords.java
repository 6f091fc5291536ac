package dev.carillon.worker.run;

import dev.carillon.api.Checkpoint;
import dev.carillon.api.Effect;
import dev.carillon.api.EffectCall;
import dev.carillon.api.RunCancelledException;
import dev.carillon.model.resume.EffectRecord;
import dev.carillon.model.resume.EffectStart;
import dev.carillon.model.resume.ResumeRules;
import dev.carillon.store.ResumeStore;
import dev.carillon.worker.WorkerMetrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's checkpoints and effects (issue 26): what {@link WorkerAgentContext#checkpoint}, {@link
 * WorkerAgentContext#lastCheckpoint} and {@link WorkerAgentContext#once} do, on the agent's thread.
 *
 * <p><b>Fencing and the lease.</b> Two checks guard every write. Here: a run that is no longer
 * RUNNING (stopped for its deadline, a lost lease or shutdown, or already ending) writes nothing,
 * except an effect's done record (see {@link #once}). In the store: each write renews the lease
 * under the heartbeat's own condition and is made only if that matched. A write the store refuses
 * means the attempt no longer holds its instance, which is what a heartbeat that renews nothing
 * means, so it goes the same way: {@link RunLeases#leaseLost} stops the run. A write the store
 * accepts renewed the lease, so it is reported as the heartbeat reports one ({@link
 * RunLeases#leaseRenewed}, with the time taken before the statement was sent): the worker's view of
 * when the lease expires stays no later than the database's, whoever renewed it last.
 *
 * <p>Thread-safe: an agent's helper threads may call it too. Calls of {@link #once} with the same
 * key wait for each other; everything else runs concurrently.
 */
final class ResumeRecords implements RunRecords {
  private static final Logger log = LoggerFactory.getLogger(ResumeRecords.class);

  private final ResumeStore store;
  private final StatementGate gate;
  private final Run run;
  private final RunLeases leases;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final ConcurrentHashMap<String, ReentrantLock> effectLocks = new ConcurrentHashMap<>();

  /** The effect keys whose start this run recorded (exec and http agents report starts apart). */
  private final Set<String> startedHere = ConcurrentHashMap.newKeySet();

  // Guarded by this: the last checkpoint of an earlier attempt, read on first use.
  private Optional<Checkpoint> last;

  ResumeRecords(
      ResumeStore store,
      StatementGate gate,
      Run run,
      RunLeases leases,
      WorkerMetrics metrics,
      String workerId) {
    this.store = store;
    this.gate = gate;
    this.run = run;
    this.leases = leases;
    this.metrics = metrics;
    this.workerId = workerId;
  }

  /** See {@link dev.carillon.api.AgentContext#lastCheckpoint()}. */
  @Override
  public synchronized Optional<Checkpoint> lastCheckpoint() {
    if (last == null) {
      last =
          io(
                  "read the last checkpoint",
                  () -> store.lastCheckpointBefore(run.instance.id(), run.instance.attempt()))
              .map(c -> new Checkpoint(c.stateJson(), c.attempt(), c.savedAt()));
      last.ifPresent(
          c ->
              log.info(
                  "{} resumes from the checkpoint attempt {} saved at {}",
                  run,
                  c.attempt(),
                  c.savedAt()));
    }
    return last;
  }

  /** See {@link dev.carillon.api.AgentContext#checkpoint(String)}. */
  @Override
  public void checkpoint(String stateJson) {
    ResumeRules.requireCheckpointState(stateJson);
    requireRunning("save a checkpoint");
    long sent = System.nanoTime();
    boolean saved =
        io("save a checkpoint", () -> store.saveCheckpoint(run.lease, workerId, stateJson))
            .isPresent();
    if (!saved) {
      metrics.checkpointsRefused.increment();
      throw refused("its checkpoint was refused");
    }
    leases.leaseRenewed(run.lease, sent);
    metrics.checkpointsSaved.increment();
  }

  /** See {@link dev.carillon.api.AgentContext#once(String, Effect)}. */
  String once(String key, Effect effect) throws Exception {
    ReentrantLock lock = lockFor(key);
    lock.lockInterruptibly();
    try {
      return onceLocked(key, effect);
    } finally {
      lock.unlock();
    }
  }

  private String onceLocked(String key, Effect effect) throws Exception {
    EffectStart start = startEffect(key);
    if (start instanceof EffectStart.AlreadyDone done) {
      metrics.effectsSkipped.increment();
      log.info(
          "{}: effect '{}' was recorded as done by attempt {} at {}; not performed again",
          run,
          key,
          done.record().attempt(),
          done.record().doneAt());
      return done.record().result();
    }
    boolean inDoubt = ((EffectStart.Started) start).inDoubt();
    if (inDoubt) {
      metrics.effectsInDoubt.increment();
      log.warn(
          "{}: effect '{}' was started before and never recorded as done; performing it again in"
              + " doubt, with idempotency key {}",
          run,
          key,
          effectKey(key));
    }
    String result = effect.perform(new EffectCall(key, effectKey(key), inDoubt));
    record(key, result);
    if (run.state() != RunState.RUNNING) {
      throw cancelled();
    }
    return result;
  }

  @Override
  public Map<String, EarlierEffect> effects() {
    List<EffectRecord> records = io("read the effects", () -> store.effectsOf(run.instance.id()));
    Map<String, EarlierEffect> out = new HashMap<>();
    Map<String, List<EffectRecord>> byKey = new HashMap<>();
    for (EffectRecord r : records) {
      byKey.computeIfAbsent(r.key(), k -> new java.util.ArrayList<>()).add(r);
    }
    byKey.forEach(
        (key, rs) -> {
          Optional<EffectRecord> done =
              rs.stream()
                  .filter(EffectRecord::done)
                  .min(
                      Comparator.comparing(EffectRecord::doneAt)
                          .thenComparingInt(EffectRecord::attempt));
          out.put(
              key,
              done.map(d -> new EarlierEffect(true, d.result(), d.attempt()))
                  .orElseGet(
                      () ->
                          new EarlierEffect(
                              false,
                              null,
                              rs.stream().mapToInt(EffectRecord::attempt).max().orElse(0))));
        });
    return out;
  }

  @Override
  public boolean effectStarted(String key) {
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      return startReported(key);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean effectDone(String key, String result) {
    ReentrantLock lock = lockFor(key);
    lock.lock();
    try {
      if (!startedHere.contains(key) && !startReported(key)) {
        return false;
      }
      record(key, result);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The lock of effect {@code key}, after checking the key. */
  private ReentrantLock lockFor(String key) {
    ResumeRules.requireEffectKey(key);
    return effectLocks.computeIfAbsent(key, k -> new ReentrantLock());
  }

  /**
   * Records this attempt's start of effect {@code key}, renewing the lease it proves; a fenced
   * attempt is refused (the effect is not performed).
   */
  private EffectStart startEffect(String key) {
    requireRunning("start effect '" + key + "'");
    long sent = System.nanoTime();
    EffectStart start =
        io("start effect '" + key + "'", () -> store.startEffect(run.lease, workerId, key));
    if (start instanceof EffectStart.Fenced) {
      metrics.effectsRefused.increment();
      throw refused("effect '" + key + "' was refused before it started");
    }
    leases.leaseRenewed(run.lease, sent);
    return start;
  }

  /** Records this attempt's start of an effect an agent reported; false when already done. */
  private boolean startReported(String key) {
    EffectStart start = startEffect(key);
    if (start instanceof EffectStart.AlreadyDone done) {
      metrics.effectsSkipped.increment();
      log.warn(
          "{}: the agent reported effect '{}', which attempt {} recorded as done at {}; not"
              + " recorded again (the agent should skip the effects its context lists as done)",
          run,
          key,
          done.record().attempt(),
          done.record().doneAt());
      return false;
    }
    if (((EffectStart.Started) start).inDoubt()) {
      metrics.effectsInDoubt.increment();
      log.warn(
          "{}: effect '{}' was started before and never recorded as done; the agent performs it"
              + " again, in doubt, with idempotency key {}",
          run,
          key,
          effectKey(key));
    }
    startedHere.add(key);
    return true;
  }

  /**
   * Records a performed effect as done (without its result when that breaks the size rule, which
   * then throws), fenced. Recorded even when the run was stopped while the effect ran (its deadline
   * passed): the record is a fact about the world, and the store's fence still keeps a newer
   * attempt's records safe.
   */
  private void record(String key, String result) {
    Optional<String> tooLarge = ResumeRules.effectResult(result);
    boolean recorded = recordDone(key, tooLarge.isEmpty() ? result : null);
    if (!recorded) {
      metrics.effectsRefused.increment();
      throw refused(
          "effect '"
              + key
              + "' was performed but its record was refused; the next attempt will see it in"
              + " doubt");
    }
    metrics.effectsPerformed.increment();
    if (tooLarge.isPresent()) {
      throw ResumeRules.resultTooLarge(key, tooLarge.get());
    }
  }

  /**
   * Writes effect {@code key}'s done record; false when the store refused it (the attempt no longer
   * holds its instance).
   *
   * <p>The effect was performed, and this record is all that keeps the next attempt from performing
   * it again in doubt. So a write that could not reach the database is tried again, with the
   * completion writer's short, growing pauses, for as long as this worker may still hold the lease
   * (its length since it was last renewed): a PostgreSQL restart of half a second just after the
   * effect no longer makes the attempt fail and the next one repeat the effect (the fault suite saw
   * that happen). Past the lease, or when the run's thread is interrupted (it is being stopped),
   * the last error is thrown and the next attempt sees the effect in doubt, as before.
   */
  private boolean recordDone(String key, String stored) {
    String what = "record effect '" + key + "' (it was performed)";
    for (int failedTries = 0; ; failedTries++) {
      long sent = System.nanoTime();
      try {
        boolean recorded =
            gate.throughEvenIfInterrupted(
                () ->
                    translated(
                        what, () -> store.recordEffect(run.lease, workerId, key, stored), false));
        if (!recorded && failedTries > 0) {
          // A try whose reply was lost may have written the record: it is not refused then.
          recorded = doneByThisAttempt(key);
        }
        if (recorded) {
          leases.leaseRenewed(run.lease, sent);
          if (failedTries > 0) {
            log.info("{}: effect '{}' was recorded after {} failed tries", run, key, failedTries);
          }
        }
        return recorded;
      } catch (UncheckedIOException e) {
        Duration pause = CompletionWriter.BACKOFF.delay(failedTries);
        long leaseEnds = run.renewedNanos + run.timeout.toNanos();
        // Logged at the first failure and at the end, not at every try (the tries can go on for
        // as long as the lease).
        if (System.nanoTime() + pause.toNanos() - leaseEnds >= 0) {
          log.warn(
              "{}: gave up trying to {} after {} tries, the lease would have ended: {}",
              run,
              what,
              failedTries + 1,
              e.getCause().getMessage());
          throw e;
        }
        if (failedTries == 0) {
          metrics.effectRecordRetries.increment();
          log.warn(
              "{}: could not {}, trying again until its lease would end: {}",
              run,
              what,
              e.getCause().getMessage());
        }
        try {
          // A plain sleep is right here: this is the agent's own run thread, which waits for
          // once() to return anyway; the pause is bounded by the lease above, and a stop
          // interrupts it.
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException stopped) {
          Thread.currentThread().interrupt();
          log.warn(
              "{}: stopped while trying to {} again after {} tries: {}",
              run,
              what,
              failedTries + 1,
              e.getCause().getMessage());
          throw e;
        }
      }
    }
  }

  /** Whether this attempt's record of effect {@code key} says done (read after a lost reply). */
  private boolean doneByThisAttempt(String key) {
    return ioEvenIfStopped("read effect '" + key + "'", () -> store.effectsOf(run.instance.id()))
        .stream()
        .anyMatch(r -> r.key().equals(key) && r.attempt() == run.lease.attempt() && r.done());
  }

  /** {@code taskId/windowKey/key}: the same for every attempt of the window. */
  private String effectKey(String key) {
    return run.instance.idempotencyKey() + "/" + key;
  }

  private void requireRunning(String what) {
    if (run.state() != RunState.RUNNING) {
      log.debug("{} is {}: did not {}", run, run.state(), what);
      throw cancelled();
    }
  }

  /** Stops the run as a lost lease does, and the exception the agent gets. */
  private RunCancelledException refused(String why) {
    leases.leaseLost(
        run.lease,
        why + ": the instance is no longer RUNNING at attempt " + run.lease.attempt() + " here");
    return cancelled();
  }

  private RunCancelledException cancelled() {
    return new RunCancelledException(run.instance.idempotencyKey(), run.instance.attempt());
  }

  /**
   * Runs a store call when the {@link StatementGate} lets it, turning a database failure into the
   * API's {@link UncheckedIOException}; a stop while it waits for its turn cancels the run.
   */
  private <T> T io(String what, Supplier<T> call) {
    try {
      return gate.through(() -> translated(what, call, true));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.debug("{} was stopped while it waited to {}", run, what);
      throw cancelled();
    }
  }

  /** As {@link #io}, but waits for its turn even when the run is stopped meanwhile. */
  private <T> T ioEvenIfStopped(String what, Supplier<T> call) {
    return gate.throughEvenIfInterrupted(() -> translated(what, call, true));
  }

  /**
   * @param logFailure whether to log a failure here ({@code false}: the caller logs it, once)
   */
  private <T> T translated(String what, Supplier<T> call, boolean logFailure) {
    try {
      return call.get();
    } catch (DataAccessException e) {
      if (logFailure) {
        log.warn("{}: could not {}: {}", run, what, e.toString());
      }
      throw new UncheckedIOException(
          "could not " + what + " for " + run, new IOException(e.getMessage(), e));
    }
  }
}
