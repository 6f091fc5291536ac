package dev.carillon.model.instance;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An instance's attempts, read from its history: each claim ({@code PENDING → RUNNING}) starts one,
 * with the claiming worker and the attempt number; the next move out of RUNNING with that attempt
 * ends it (success, failure with its reason, timeout, release, cancellation). Pure.
 */
public final class Attempts {
  private Attempts() {}

  /**
   * One attempt.
   *
   * @param number the attempt number (the fencing token of its claim)
   * @param worker the worker that claimed it
   * @param startedAt when it was claimed
   * @param endedAt when it left RUNNING, or null while it runs
   * @param outcome the status it ended in ({@code SUCCESS}, {@code FAILED}, {@code TIMEOUT}, {@code
   *     PENDING} for a release, {@code CANCELLED}), or null while it runs
   * @param reason why it ended so (a failure's reason), or null
   */
  public record Attempt(
      int number,
      String worker,
      Instant startedAt,
      Instant endedAt,
      InstanceStatus outcome,
      String reason) {

    /** How long it ran: to its end, or to {@code now} while it runs. */
    public Duration duration(Instant now) {
      Duration d = Duration.between(startedAt, endedAt == null ? now : endedAt);
      return d.isNegative() ? Duration.ZERO : d;
    }
  }

  /**
   * The attempts recorded in {@code events} (one instance's history, oldest first), oldest first.
   * An end without a recorded claim (history cut by archiving) is left out.
   */
  public static List<Attempt> of(List<InstanceEvent> events) {
    Map<Integer, Attempt> byNumber = new LinkedHashMap<>();
    Integer open = null;
    for (InstanceEvent e : events) {
      if (e.kind() != InstanceEvent.Kind.TRANSITION) {
        continue;
      }
      if (e.from() == InstanceStatus.PENDING && e.to() == InstanceStatus.RUNNING) {
        int n = e.attempt() == null ? byNumber.size() + 1 : e.attempt();
        byNumber.put(n, new Attempt(n, e.actor(), e.at(), null, null, null));
        open = n;
      } else if (e.from() == InstanceStatus.RUNNING) {
        Integer n = e.attempt() != null ? e.attempt() : open;
        Optional<Attempt> started = Optional.ofNullable(n == null ? null : byNumber.get(n));
        if (started.isPresent() && started.get().endedAt() == null) {
          Attempt a = started.get();
          byNumber.put(
              a.number(),
              new Attempt(a.number(), a.worker(), a.startedAt(), e.at(), e.to(), e.reason()));
        }
        if (n != null && n.equals(open)) {
          open = null;
        }
      }
    }
    return new ArrayList<>(byNumber.values());
  }
}
