package dev.carillon.model.resume;

/**
 * What asking to start an effect found: it is already done, this attempt may start it now (perhaps
 * in doubt), or the attempt no longer holds its instance.
 */
public sealed interface EffectStart {

  /**
   * An attempt recorded the effect as done; it must not run again.
   *
   * @param record the first done record
   */
  record AlreadyDone(EffectRecord record) implements EffectStart {}

  /**
   * This attempt's start is recorded; run the effect now.
   *
   * @param inDoubt whether an earlier start (by any attempt) was never recorded as done, so that
   *     the effect may already have happened
   */
  record Started(boolean inDoubt) implements EffectStart {}

  /** The instance is no longer RUNNING at this attempt on this worker; nothing was written. */
  record Fenced() implements EffectStart {}
}
