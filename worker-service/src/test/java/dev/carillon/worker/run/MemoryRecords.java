package dev.carillon.worker.run;

import dev.carillon.api.Checkpoint;
import dev.carillon.model.resume.ResumeRules;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link RunRecords} in memory, for the exec and http executions' unit tests: what earlier attempts
 * left is set up front, and what the agent reports is kept in order, with the store's rules (the
 * same limits). The database's side, fencing included, is tested with the real store and worker
 * ({@code ResumeStoreTest}, {@code ResumeTest}, {@code ExecResumeTest}).
 */
public final class MemoryRecords implements RunRecords {
  private final Optional<Checkpoint> last;
  private final Map<String, EarlierEffect> earlier;

  /** In order: {@code checkpoint <state>}, {@code start <key>}, {@code done <key> <result>}. */
  public final List<String> reported = new CopyOnWriteArrayList<>();

  public MemoryRecords(Optional<Checkpoint> last, Map<String, EarlierEffect> earlier) {
    this.last = last;
    this.earlier = Map.copyOf(earlier);
  }

  /** Nothing left by earlier attempts. */
  public static MemoryRecords empty() {
    return new MemoryRecords(Optional.empty(), Map.of());
  }

  @Override
  public Optional<Checkpoint> lastCheckpoint() {
    return last;
  }

  @Override
  public Map<String, EarlierEffect> effects() {
    return earlier;
  }

  @Override
  public void checkpoint(String stateJson) {
    ResumeRules.checkpointState(stateJson)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("checkpoint state " + p);
            });
    reported.add("checkpoint " + stateJson);
  }

  @Override
  public boolean effectStarted(String key) {
    checkKey(key);
    reported.add("start " + key);
    return !isDone(key);
  }

  @Override
  public boolean effectDone(String key, String result) {
    checkKey(key);
    if (isDone(key)) {
      return false;
    }
    reported.add("done " + key + " " + result);
    return true;
  }

  private boolean isDone(String key) {
    EarlierEffect e = earlier.get(key);
    return e != null && e.done();
  }

  private static void checkKey(String key) {
    ResumeRules.effectKey(key)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("effect key '" + key + "' " + p);
            });
  }
}
