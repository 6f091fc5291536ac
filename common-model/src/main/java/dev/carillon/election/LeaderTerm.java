package dev.carillon.election;

import dev.carillon.store.EpochStore;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One service instance's leadership terms, and the {@link Fence} its leader-only writes carry.
 *
 * <p>A term runs from {@link #begin()} (ZooKeeper granted leadership) to {@link #end()} (it was
 * lost). Its fence is taken on the first {@link #fence()} of the term, by a loop thread, never on
 * Curator's event thread: ZooKeeper is asked whether this candidate really leads now ({@code
 * confirmed}, a read of the election's nodes), then the next epoch is taken in PostgreSQL ({@link
 * EpochStore#begin}, which fences out every older leader), then ZooKeeper is asked again. A
 * candidate that was deposed while frozen, and resumes believing it leads, fails the first question
 * and takes nothing. One deposed in the instant between the first question and the epoch fails the
 * second and uses nothing; the epoch it took fences out the real leader's next write, whose term
 * then takes a newer one (its confirmation succeeds), so the interruption is one round.
 *
 * <p>When a write is refused ({@link #fenced}), the fence is forgotten and the refusal logged and
 * counted ({@code carillon.leader.fenced{service}}); the next round asks ZooKeeper again before it
 * takes another epoch. The current epoch is the gauge {@code carillon.leader.epoch{service}} (0
 * without one).
 *
 * <p>Thread-safe; {@link #begin()} and {@link #end()} return at once.
 */
public final class LeaderTerm implements Fencing {
  private static final Logger log = LoggerFactory.getLogger(LeaderTerm.class);

  private final String service;
  private final String holder;
  private final EpochStore epochs;
  private final BooleanSupplier confirmed;
  private final Counter fencedWrites;
  private final AtomicLong epochGauge = new AtomicLong();

  /** Serializes taking an epoch; never held by {@link #begin()} or {@link #end()}. */
  private final Object taking = new Object();

  private final Object lock = new Object();
  private long term;
  private boolean active;
  private Fence fence;
  private boolean refusalLogged;
  private Fence reported;

  /**
   * @param service the election's service name, also the {@code leader_epoch} row
   * @param holder this instance's id, recorded with the epoch it takes
   * @param epochs where epochs are taken
   * @param confirmed asks ZooKeeper whether this candidate leads right now ({@link
   *     LeaderElection#confirm()})
   * @param registry where the epoch gauge and the fenced-write counter go
   */
  public LeaderTerm(
      String service,
      String holder,
      EpochStore epochs,
      BooleanSupplier confirmed,
      MeterRegistry registry) {
    this.service = Objects.requireNonNull(service, "service");
    this.holder = Objects.requireNonNull(holder, "holder");
    this.epochs = Objects.requireNonNull(epochs, "epochs");
    this.confirmed = Objects.requireNonNull(confirmed, "confirmed");
    this.fencedWrites =
        Counter.builder("carillon.leader.fenced")
            .description("leader-only writes refused because a newer leader took the epoch")
            .tag("service", service)
            .register(registry);
    Gauge.builder("carillon.leader.epoch", epochGauge, AtomicLong::get)
        .description("the leader epoch this instance writes under (0 before its first term)")
        .tags(Tags.of("service", service))
        .register(registry);
  }

  /** Leadership was granted: a new term begins; its fence is taken on first use. */
  public void begin() {
    synchronized (lock) {
      term++;
      active = true;
      fence = null;
      refusalLogged = false;
    }
  }

  /** Leadership was lost: the term ends, and no round starts under its fence any more. */
  public void end() {
    synchronized (lock) {
      term++;
      active = false;
      fence = null;
    }
    epochGauge.set(0);
  }

  /** Whether a term runs (leadership granted and not lost since). */
  public boolean isActive() {
    synchronized (lock) {
      return active;
    }
  }

  /** The current term's fence, if it has taken one. */
  public Optional<Fence> current() {
    synchronized (lock) {
      return Optional.ofNullable(fence);
    }
  }

  /** Writes refused because another leader took a newer epoch, since start. */
  public long fencedWrites() {
    return (long) fencedWrites.count();
  }

  @Override
  public Fence fence() {
    synchronized (taking) {
      long myTerm;
      synchronized (lock) {
        if (!active) {
          throw new NotLeaderException(service, "no leadership term");
        }
        if (fence != null) {
          return fence;
        }
        myTerm = term;
      }
      if (!confirmed.getAsBoolean()) {
        throw refuse(myTerm, "ZooKeeper does not confirm that " + holder + " leads");
      }
      Fence taken = epochs.begin(service, holder);
      if (!confirmed.getAsBoolean()) {
        throw refuse(myTerm, "deposed while taking " + taken + "; not used");
      }
      synchronized (lock) {
        if (!active || term != myTerm) {
          throw new NotLeaderException(service, "the term ended while " + taken + " was taken");
        }
        fence = taken;
      }
      epochGauge.set(taken.epoch());
      log.info("{} leads {} under {}", holder, service, taken);
      return taken;
    }
  }

  private NotLeaderException refuse(long myTerm, String why) {
    synchronized (lock) {
      if (term == myTerm && !refusalLogged) {
        refusalLogged = true;
        log.warn("{}: not taking a {} epoch: {}", holder, service, why);
      }
    }
    return new NotLeaderException(service, why);
  }

  @Override
  public void fenced(FencedException e) {
    fencedWrites.increment();
    boolean first;
    synchronized (lock) {
      if (e.fence().equals(fence)) {
        fence = null;
        epochGauge.set(0);
      }
      first = !e.fence().equals(reported);
      reported = e.fence();
    }
    if (first) {
      log.warn(
          "{}: {}. Another {} leader took over; this one writes nothing more until ZooKeeper"
              + " confirms that it leads again",
          holder,
          e.getMessage(),
          service);
    } else {
      log.info("{}: {} (refused under the same epoch again)", holder, e.getMessage());
    }
  }
}
