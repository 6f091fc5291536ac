package dev.carillon.model.resume;

import java.time.Instant;
import java.util.Objects;

/**
 * One attempt's record of one effect of an instance: that it started the effect and, once the
 * effect returned, that it is done and with what result.
 *
 * @param instanceId the instance
 * @param key the effect's key
 * @param attempt the attempt that started it
 * @param starts how many times this attempt started it (more than one when a call threw and a later
 *     call of the same attempt tried again)
 * @param workerId the worker that ran the attempt
 * @param startedAt when this attempt last started it, by the database's clock
 * @param doneAt when its done record was written, or {@code null} when it was not: the effect
 *     failed, or the attempt died or lost its lease before recording it (in doubt)
 * @param result the effect's result as recorded, or {@code null}
 */
public record EffectRecord(
    long instanceId,
    String key,
    int attempt,
    int starts,
    String workerId,
    Instant startedAt,
    Instant doneAt,
    String result) {

  public EffectRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(startedAt, "startedAt");
  }

  /** Whether this attempt recorded the effect as done. */
  public boolean done() {
    return doneAt != null;
  }
}
