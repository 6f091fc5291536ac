package dev.carillon.worker.exec;

/** One line an exec agent wrote to stdout, as the worker reads it (see {@link Protocol}). */
sealed interface ProtocolLine {
  /** A line that is not a protocol line: the agent's own output, ignored. */
  record Plain() implements ProtocolLine {}

  /** {@code {"type":"progress","message":"read 3 of 10 files"}}. */
  record Progress(String message) implements ProtocolLine {}

  /**
   * {@code {"type":"result","summary":"...","uri":"s3://..."}}: the run's result when it exits 0;
   * the last one wins.
   *
   * @param uri the artifact URI as written, or {@code null}
   */
  record Result(String summary, String uri) implements ProtocolLine {}

  /**
   * {@code {"type":"checkpoint","state":{...}}}: a checkpoint to store.
   *
   * @param stateJson the state object as JSON text
   */
  record Checkpoint(String stateJson) implements ProtocolLine {}

  /**
   * {@code {"type":"effect","key":"post","phase":"start"}} before an effect, {@code
   * {"type":"effect","key":"post","result":"msg-17"}} once it is done.
   *
   * @param start whether this is the start (otherwise it is done)
   * @param result the done effect's result, or {@code null}
   */
  record Effect(String key, boolean start, String result) implements ProtocolLine {}

  /**
   * A protocol line of a type or version this worker does not know: ignored and counted, so that
   * agents written for a newer worker still run on this one.
   *
   * @param what the type (or {@code v2}) for the log
   */
  record Unknown(String what) implements ProtocolLine {}

  /**
   * A line that starts like a protocol line but is not one (not a JSON object, no type, a field of
   * the wrong kind): ignored and counted.
   *
   * @param problem what is wrong, for the log
   */
  record Malformed(String problem) implements ProtocolLine {}
}
