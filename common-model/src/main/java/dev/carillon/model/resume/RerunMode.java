package dev.carillon.model.resume;

/**
 * What an operator's re-run of a finished instance does with what its attempts left for resuming:
 * their checkpoints and their effects.
 */
public enum RerunMode {
  /**
   * Keep them (the default): the re-run resumes from the last checkpoint, and effects recorded as
   * done are not performed again. A re-run usually follows a fix of what made the instance fail (a
   * tool outage, a bad credential), and repeating a digest already posted or a charge already made
   * is the expensive surprise; discarding is irreversible, so it must be asked for.
   */
  RESUME,

  /**
   * Delete them in the re-run's transaction: the re-run starts from nothing and performs every
   * effect again. For re-doing the window's work on purpose (the input was wrong, the agent was
   * fixed).
   */
  FROM_SCRATCH
}
