package dev.carillon.worker.run;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * When a worker stops trusting its own threads. A run asked to stop that has not ended within its
 * grace is abandoned; {@code maxAbandoned} of them at once make the worker give up ({@code
 * onGiveUp}), so that a new process gets its threads back.
 *
 * <p>{@code outage} names what, if anything, keeps run threads busy through no fault of their
 * plugin: while the worker's own database does not answer, a run blocked in a write to it (a
 * checkpoint, an effect record, the agent's own statement) cannot end, and a new process would not
 * reach the database either. While {@code outage} says so, such a run is not counted as abandoned
 * yet; it is looked at again every grace, and counted once the outage is over and it still has not
 * ended. Its slot stays taken meanwhile, so deferring never adds threads.
 *
 * @param maxAbandoned abandoned runs at once that make the worker give up, at least 1
 * @param onGiveUp told why, once, when {@code maxAbandoned} is reached
 * @param outage the reason run threads may be blocked by something other than their plugin, or
 *     empty when there is none
 */
public record GiveUp(
    int maxAbandoned, Consumer<String> onGiveUp, Supplier<Optional<String>> outage) {
  public GiveUp {
    if (maxAbandoned < 1) {
      throw new IllegalArgumentException("maxAbandoned must be at least 1, was " + maxAbandoned);
    }
    Objects.requireNonNull(onGiveUp, "onGiveUp");
    Objects.requireNonNull(outage, "outage");
  }
}
