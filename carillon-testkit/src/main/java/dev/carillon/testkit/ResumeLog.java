package dev.carillon.testkit;

import dev.carillon.api.Checkpoint;
import dev.carillon.api.Effect;
import dev.carillon.api.EffectCall;
import dev.carillon.api.RunCancelledException;
import dev.carillon.model.resume.ResumeRules;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@link TestAgentContext}'s checkpoints and effects, kept in memory with the worker's rules: the
 * same limits ({@link ResumeRules}), nothing written after cancellation, effects serialized per
 * key, in doubt when started and never recorded, and the crash points a test chooses. Thread-safe.
 */
final class ResumeLog {

  /** An effect as the log knows it. */
  static final class EffectState {
    boolean done;
    String result;
    boolean startedUnrecorded;
    int runs;

    EffectState copyForNextAttempt() {
      EffectState next = new EffectState();
      next.done = done;
      next.result = result;
      next.startedUnrecorded = startedUnrecorded;
      return next;
    }
  }

  /** Where the test makes the run stop, as a worker's death would. */
  record Stops(int afterCheckpoints, String afterEffect, String beforeRecording) {
    static final Stops NONE = new Stops(0, null, null);
  }

  private final Clock clock;
  private final int attempt;
  private final Optional<Checkpoint> last;
  private final Stops stops;
  private final Runnable cancel;
  private final CancelledCheck cancelled;
  private final List<String> saved = new ArrayList<>();
  private final Map<String, EffectState> effects;
  private final ConcurrentHashMap<String, ReentrantLock> locks = new ConcurrentHashMap<>();
  private Checkpoint lastSaved;

  /** Whether the run is cancelled, and the exception that says so. */
  interface CancelledCheck {
    boolean isCancelled();

    RunCancelledException exception();
  }

  ResumeLog(
      Clock clock,
      int attempt,
      Optional<Checkpoint> last,
      Map<String, EffectState> effects,
      Stops stops,
      Runnable cancel,
      CancelledCheck cancelled) {
    this.clock = clock;
    this.attempt = attempt;
    this.last = last;
    this.effects = new LinkedHashMap<>(effects);
    this.stops = stops;
    this.cancel = cancel;
    this.cancelled = cancelled;
  }

  Optional<Checkpoint> lastCheckpoint() {
    return last;
  }

  void checkpoint(String stateJson) {
    ResumeRules.requireCheckpointState(stateJson);
    boolean stop;
    synchronized (this) {
      requireLive();
      saved.add(stateJson);
      lastSaved = new Checkpoint(stateJson, attempt, clock.instant());
      stop = saved.size() == stops.afterCheckpoints();
    }
    if (stop) {
      cancel.run();
    }
  }

  String once(String key, Effect effect, String idempotencyKey) throws Exception {
    ResumeRules.requireEffectKey(key);
    ReentrantLock lock = locks.computeIfAbsent(key, k -> new ReentrantLock());
    lock.lockInterruptibly();
    try {
      EffectState state;
      boolean inDoubt;
      synchronized (this) {
        requireLive();
        state = effects.computeIfAbsent(key, k -> new EffectState());
        if (state.done) {
          return state.result;
        }
        inDoubt = state.startedUnrecorded;
        state.startedUnrecorded = true;
      }
      String result = effect.perform(new EffectCall(key, idempotencyKey + "/" + key, inDoubt));
      synchronized (this) {
        state.runs++;
      }
      if (key.equals(stops.beforeRecording())) {
        cancel.run();
        throw cancelled.exception();
      }
      Optional<String> tooLarge = ResumeRules.effectResult(result);
      synchronized (this) {
        state.done = true;
        state.startedUnrecorded = false;
        state.result = tooLarge.isEmpty() ? result : null;
      }
      if (key.equals(stops.afterEffect())) {
        cancel.run();
      }
      if (tooLarge.isPresent()) {
        throw ResumeRules.resultTooLarge(key, tooLarge.get());
      }
      return result;
    } finally {
      lock.unlock();
    }
  }

  synchronized List<String> saved() {
    return List.copyOf(saved);
  }

  synchronized Optional<Checkpoint> lastSaved() {
    return Optional.ofNullable(lastSaved);
  }

  synchronized Optional<EffectState> effect(String key) {
    return Optional.ofNullable(effects.get(key));
  }

  /** The effects a next attempt starts with: done ones, and started ones in doubt. */
  synchronized Map<String, EffectState> forNextAttempt() {
    Map<String, EffectState> next = new HashMap<>();
    effects.forEach((k, v) -> next.put(k, v.copyForNextAttempt()));
    return next;
  }

  private void requireLive() {
    if (cancelled.isCancelled()) {
      throw cancelled.exception();
    }
  }
}
