package dev.carillon.trigger.dispatch;

import dev.carillon.election.Fencing;
import dev.carillon.election.NotLeaderException;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.tick.TriggerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes new PENDING instances to Kafka on its own thread and stamps {@code dispatched_at} after
 * Kafka acknowledged them, so that a slow or absent Kafka never delays window creation.
 *
 * <p>The stamp is written {@link #stampDelay()} after the acknowledgement (half the sweep interval,
 * at most {@link #MAX_STAMP_DELAY}), and only on rows still PENDING by then. A worker with room
 * claims a published instance within milliseconds, and a claimed row needs no stamp; stamping at
 * once would update every row a second time and make the workers' claims wait for the stamp's row
 * locks, which would put the stamp on every instance's fire lag. Until its stamp a row counts as in
 * flight: the sweep leaves unstamped rows alone for {@code sweepEvery}.
 *
 * <p>The tick hands over the instances it created ({@link #submit}); every {@code sweepEvery} the
 * dispatcher also asks the database for PENDING instances never dispatched, or dispatched more than
 * {@code redispatchAfter} ago ({@link WindowStore#undispatched}), and publishes those: that is how
 * instances created while Kafka was down, or by a leader that died before publishing, get out. A
 * sweep reads {@link #BATCH} rows; when it read a full batch of rows never dispatched and Kafka
 * acknowledged all of it, it stamps them at once and the next sweep comes in the next round rather
 * than a sweep interval later, so a backlog drains at Kafka's pace (one batch a round, between the
 * queue's own batches) and not at one batch per {@code sweepEvery}: at 1,000 rows per 5 s, the
 * 30,000 rows of a 300-second Kafka outage at 100 fires a second took minutes to get out after
 * Kafka returned (the fault suite's full run). The same sweep publishes what did not fit in the
 * queue: it holds at most {@link #MAX_BACKLOG} instances (a Kafka that stops acknowledging must not
 * fill the heap), and instances submitted beyond that are logged, counted ({@code
 * carillon.trigger.publish{result=deferred}}) and left PENDING and undispatched for the sweep. A
 * message may therefore be published twice; the workers' claim is a compare-and-set, so that is
 * harmless.
 *
 * <p>An instance created ahead of its fire time ({@code trigger.create-ahead}) is held until {@link
 * #PUBLISH_AHEAD} before its {@code scheduled_at} on the dispatcher's clock (the database's) and
 * published then; the workers hold it for the last moment and claim it on the instant. The held
 * ones count toward the queue's bound. A dispatcher that stops leaves them PENDING and unstamped
 * for the next leader's sweep, which publishes only rows that are due.
 *
 * <p>The stamp is a leader's write and carries its fence ({@link Fencing}); a dispatcher whose
 * leadership ended drops the stamps it still owes, and the next leader's sweep publishes those
 * instances again.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (idempotent). Thread-safe.
 */
public final class Dispatcher implements AutoCloseable {
  /** The most instances waiting in the queue; more are left to the sweep. */
  public static final int MAX_BACKLOG = 100_000;

  /** Largest number of messages in one publish call. */
  public static final int BATCH = 1_000;

  /**
   * The longest wait between Kafka's acknowledgement and the stamp of the rows still PENDING. Long
   * enough that a burst's rows are claimed before it (a stamp is one more index-maintaining update
   * per row); short enough that the sweep's grace (the sweep interval) is never reached by a row
   * waiting for its stamp.
   */
  public static final Duration MAX_STAMP_DELAY = Duration.ofSeconds(2);

  /**
   * How long before its {@code scheduled_at} an instance created ahead is published: a few times
   * Kafka's delivery time (5-15 ms here), so that the record is on a worker when the instance
   * becomes due, and on a worker with {@code worker.claim-ahead} in time for its claim to end
   * before then (20 ms left a claim of 100 instances past the instant in a few seconds of a 100/s
   * run). A worker holds a record that arrives early and claims it on the instant, or claim-ahead
   * before it (its claim refuses an instance not due within that by the database's clock), so
   * Kafka's delivery leaves the fire lag.
   */
  public static final Duration PUBLISH_AHEAD = Duration.ofMillis(50);

  /** Ids Kafka acknowledged at {@code ackedNanos}, not yet stamped. */
  private record Acked(List<Long> ids, long ackedNanos) {}

  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final InstancePublisher publisher;
  private final WindowStore store;
  private final Clock clock;
  private final Duration redispatchAfter;
  private final Duration sweepEvery;
  private final BooleanSupplier active;
  private final Fencing fencing;
  private final TriggerMetrics metrics;
  private final LinkedBlockingQueue<Instance> queue;
  // Created ahead of their fire time, earliest first; taken from the queue and published by the
  // publishing thread only, sized from the gauge's thread too.
  private final PriorityBlockingQueue<Instance> held =
      new PriorityBlockingQueue<>(
          64, Comparator.comparing(Instance::scheduledAt).thenComparing(Instance::id));
  private final int maxBacklog;
  private final AtomicInteger highWater = new AtomicInteger();
  private final AtomicLong deferredInStreak = new AtomicLong();
  private final PeriodicLoop loop;
  private final ArrayDeque<Acked> unstamped = new ArrayDeque<>();
  private final long stampDelayNanos;
  private final AtomicBoolean started = new AtomicBoolean();
  // Touched by the publishing thread only.
  private long nextSweepNanos = System.nanoTime();
  // The last sweep read a full batch that Kafka acknowledged: more may wait.
  private boolean sweepAgain;
  private long sweptInStreak;
  private int sweepsInStreak;

  /**
   * @param publisher the Kafka publisher; not closed by this class
   * @param store for {@code markDispatched} and the sweep
   * @param clock stamps {@code publishedAt} on messages
   * @param redispatchAfter a PENDING instance dispatched longer ago than this is published again
   * @param sweepEvery how often to look for undispatched instances
   * @param active whether to sweep now (only the leader sweeps)
   * @param fencing the leader's fence for the stamps
   * @param metrics counts publish results
   */
  public Dispatcher(
      InstancePublisher publisher,
      WindowStore store,
      Clock clock,
      Duration redispatchAfter,
      Duration sweepEvery,
      BooleanSupplier active,
      Fencing fencing,
      TriggerMetrics metrics) {
    this(
        publisher,
        store,
        clock,
        redispatchAfter,
        sweepEvery,
        active,
        fencing,
        metrics,
        MAX_BACKLOG);
  }

  /**
   * As the constructor above, with the most instances the queue holds ({@code
   * trigger.max-dispatch-backlog}).
   */
  public Dispatcher(
      InstancePublisher publisher,
      WindowStore store,
      Clock clock,
      Duration redispatchAfter,
      Duration sweepEvery,
      BooleanSupplier active,
      Fencing fencing,
      TriggerMetrics metrics,
      int maxBacklog) {
    if (maxBacklog < 1) {
      throw new IllegalArgumentException("maxBacklog must be at least 1, was " + maxBacklog);
    }
    this.queue = new LinkedBlockingQueue<>(maxBacklog);
    this.maxBacklog = maxBacklog;
    metrics.registry().gauge("carillon.trigger.dispatch.backlog", this, Dispatcher::backlog);
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.redispatchAfter = Objects.requireNonNull(redispatchAfter, "redispatchAfter");
    if (sweepEvery == null || sweepEvery.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("sweepEvery must be at least PT0.1S, was " + sweepEvery);
    }
    this.sweepEvery = sweepEvery;
    this.stampDelayNanos = Math.min(MAX_STAMP_DELAY.toNanos(), sweepEvery.toNanos() / 2);
    this.active = Objects.requireNonNull(active, "active");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    // No pause between rounds: each round waits in the queue's poll until work arrives, a stamp is
    // due or the next sweep is. A failed round leaves its instances undispatched in the database,
    // and the next sweep finds them.
    this.loop =
        new PeriodicLoop(
            "trigger-dispatch", Pace.fixedDelay(Duration.ZERO), StopMode.INTERRUPT, this::round);
  }

  /**
   * Queues new instances for publishing; returns at once. Those that do not fit (see {@link
   * #MAX_BACKLOG}) stay undispatched, for the sweep.
   */
  public void submit(List<Instance> created) {
    int deferred = 0;
    // Whole, so that the publishing thread, woken by the first element, takes the tick's
    // instances in one batch instead of publishing the first one alone.
    synchronized (queue) {
      for (Instance i : created) {
        if (!queue.offer(i)) {
          deferred++;
        }
      }
    }
    highWater.accumulateAndGet(queue.size(), Math::max);
    if (deferred > 0) {
      metrics.deferred(deferred);
      // Once per streak: a Kafka that is away for minutes fills the queue on every tick.
      if (deferredInStreak.getAndAdd(deferred) == 0) {
        log.warn(
            "Dispatch queue full ({} waiting for Kafka); new instances stay undispatched and are"
                + " published by the sweep (every {}) until it has room again",
            queue.size(),
            sweepEvery);
      }
    } else {
      long streak = deferredInStreak.getAndSet(0);
      if (streak > 0) {
        log.info(
            "Dispatch queue has room again; {} instance(s) were left to the sweep meanwhile",
            streak);
      }
    }
  }

  /** The most instances the queue has held at once since start; never above its bound. */
  public int backlogHighWater() {
    return highWater.get();
  }

  /** How long after Kafka's acknowledgement the rows still PENDING are stamped. */
  public Duration stampDelay() {
    return Duration.ofNanos(stampDelayNanos);
  }

  /** Instances queued or held for their fire time, not yet handed to Kafka. */
  public int backlog() {
    return queue.size() + held.size();
  }

  /** Instances created ahead and held until their fire time. */
  public int held() {
    return held.size();
  }

  /** Starts the publishing thread. */
  public void start() {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("Dispatcher already started");
    }
    loop.start();
  }

  /**
   * Publishes what is queued, stamps everything acknowledged so far (without waiting for {@link
   * #stampDelay()}), then one sweep of undispatched instances. The publishing thread calls it;
   * tests may call it directly on a dispatcher that was not started.
   *
   * @return the number of instances Kafka acknowledged
   */
  public int dispatchOnce() {
    return dispatchAndSweep(true);
  }

  private int dispatchAndSweep(boolean stampAll) {
    int acked = 0;
    List<Instance> batch = new ArrayList<>();
    // What is queued now, not what keeps arriving: while Kafka is slow or away the ticks refill
    // the queue as fast as it drains, and the sweep (and the backlog's age) must still come.
    int queued = queue.size();
    for (int taken = 0; taken < queued && drain(batch, BATCH) > 0; batch.clear()) {
      taken += batch.size();
      acked += publishDue(batch);
    }
    acked += publishDue(batch);
    stamp(stampAll);
    if (active.getAsBoolean()) {
      // A row left unstamped for a whole sweep interval was not published by this dispatcher's
      // queue (Kafka refused it, or it was created by a leader that died); younger ones are still
      // on their way.
      metrics.oldestUndispatched(store.oldestUndispatchedAge().orElse(Duration.ZERO));
      List<Instance> stranded = store.undispatched(sweepEvery, redispatchAfter, BATCH);
      boolean continued = sweepAgain;
      sweepAgain = false;
      if (!stranded.isEmpty()) {
        if (!continued) {
          log.info("Publishing {} undispatched PENDING instance(s)", stranded.size());
        }
        int ok = publish(stranded);
        acked += ok;
        sweepAgain = sweepAgain(stranded, ok);
        // Rows the next sweep must not read again are stamped now, not after the stamp delay.
        stamp(stampAll || sweepAgain);
        sweptInStreak += ok;
        sweepsInStreak++;
      }
      if (!sweepAgain) {
        if (sweepsInStreak > 1) {
          log.info(
              "Published {} undispatched PENDING instance(s) in {} sweeps, one after the other",
              sweptInStreak,
              sweepsInStreak);
        }
        sweptInStreak = 0;
        sweepsInStreak = 0;
      }
    } else {
      // The backlog is the leader's to report; a former leader's last reading would alert forever.
      metrics.oldestUndispatched(Duration.ZERO);
    }
    return acked;
  }

  /**
   * Whether the next sweep should come at once: the batch was full, Kafka acknowledged all of it,
   * and it held only rows never dispatched (the backlog of an outage or of a full queue). Rows
   * published before and still unclaimed (republished after {@code redispatchAfter}) wait for busy
   * workers, not for Kafka: publishing them again batch after batch would only queue copies, so
   * they go out one batch per sweep interval, as a lost message's recovery. The sweep reads never
   * dispatched rows first, so the batch's last row tells.
   */
  static boolean sweepAgain(List<Instance> batch, int acknowledged) {
    return batch.size() == BATCH
        && acknowledged == batch.size()
        && batch.get(batch.size() - 1).dispatchedAt() == null;
  }

  /**
   * Takes up to {@code max} queued instances into {@code into}, fewer while the held ones fill the
   * bound: what stays queued makes {@link #submit} leave new instances to the sweep.
   */
  private int drain(List<Instance> into, int max) {
    int room = Math.min(max, maxBacklog - held.size());
    if (room <= 0) {
      return 0;
    }
    synchronized (queue) {
      return queue.drainTo(into, room);
    }
  }

  /**
   * Publishes those of {@code batch} that are due (within {@link #PUBLISH_AHEAD}) and the held ones
   * that have become due, and holds the rest until then.
   *
   * @return the number Kafka acknowledged
   */
  private int publishDue(List<Instance> batch) {
    Instant now = clock.instant().plus(PUBLISH_AHEAD);
    List<Instance> due = new ArrayList<>(batch.size());
    for (Instance i : batch) {
      if (i.scheduledAt().isAfter(now)) {
        held.add(i);
      } else {
        due.add(i);
      }
    }
    for (Instance h = held.peek(); h != null && !h.scheduledAt().isAfter(now); h = held.peek()) {
      due.add(held.poll());
    }
    int acked = 0;
    for (int from = 0; from < due.size(); from += BATCH) {
      acked += publish(due.subList(from, Math.min(due.size(), from + BATCH)));
    }
    return acked;
  }

  /** Nanoseconds until the earliest held instance is due, or {@code max}. */
  private long untilHeld(long max) {
    Instance first = held.peek();
    if (first == null) {
      return max;
    }
    long until =
        Duration.between(clock.instant(), first.scheduledAt().minus(PUBLISH_AHEAD)).toNanos();
    return Math.max(0, Math.min(max, until));
  }

  /** Stamps the acknowledged ids whose delay has passed, or all of them when {@code all}. */
  private void stamp(boolean all) {
    List<Long> due = new ArrayList<>();
    long now = System.nanoTime();
    synchronized (unstamped) {
      while (!unstamped.isEmpty()
          && (all || now - unstamped.peekFirst().ackedNanos() >= stampDelayNanos)) {
        due.addAll(unstamped.pollFirst().ids());
      }
    }
    if (due.isEmpty()) {
      return;
    }
    Fence fence;
    try {
      fence = fencing.fence();
    } catch (NotLeaderException e) {
      log.info(
          "{} published instance(s) left unstamped ({}); the next leader's sweep publishes them"
              + " again",
          due.size(),
          e.getMessage());
      return;
    }
    try {
      store.markDispatched(due, fence);
    } catch (FencedException e) {
      fencing.fenced(e);
    }
  }

  /** Nanoseconds until the oldest acknowledged batch is due for its stamp, or {@code max}. */
  private long untilStamp(long max) {
    Acked oldest;
    synchronized (unstamped) {
      oldest = unstamped.peekFirst();
    }
    if (oldest == null) {
      return max;
    }
    return Math.max(0, Math.min(max, oldest.ackedNanos() + stampDelayNanos - System.nanoTime()));
  }

  private int publish(List<Instance> batch) {
    List<InstanceMessage> messages = new ArrayList<>(batch.size());
    var now = clock.instant();
    for (Instance i : batch) {
      messages.add(InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), now));
    }
    List<Long> acked = publisher.publish(messages);
    metrics.published(acked.size(), batch.size() - acked.size());
    if (!acked.isEmpty()) {
      synchronized (unstamped) {
        unstamped.addLast(new Acked(acked, System.nanoTime()));
      }
    }
    if (acked.size() < batch.size()) {
      log.warn(
          "{} of {} instance(s) not acknowledged by Kafka; they stay PENDING and are published again"
              + " by a later sweep",
          batch.size() - acked.size(),
          batch.size());
    }
    return acked.size();
  }

  /**
   * One round of the publishing thread: publishes what arrives before the next stamp or sweep is
   * due, stamps what is due, and sweeps when its time has come.
   */
  private void round() throws InterruptedException {
    long wait = untilHeld(untilStamp(Math.max(0, nextSweepNanos - System.nanoTime())));
    // While the held ones fill the bound the queue is left alone until the first of them is due.
    Instance first =
        held.size() < maxBacklog ? queue.poll(wait, TimeUnit.NANOSECONDS) : waitFor(wait);
    List<Instance> batch = new ArrayList<>();
    if (first != null) {
      batch.add(first);
      drain(batch, BATCH - 1);
    }
    publishDue(batch);
    stamp(false);
    if (System.nanoTime() - nextSweepNanos >= 0) {
      nextSweepNanos = System.nanoTime() + sweepEvery.toNanos();
      dispatchAndSweep(false);
      if (sweepAgain) {
        nextSweepNanos = System.nanoTime();
      }
    }
  }

  private static Instance waitFor(long nanos) throws InterruptedException {
    TimeUnit.NANOSECONDS.sleep(nanos);
    return null;
  }

  /** Stops the thread; instances still queued or held are left to the next leader's sweep. */
  @Override
  public void close() {
    loop.stopAndWait(Duration.ofSeconds(15));
    if (!held.isEmpty()) {
      log.info(
          "{} instance(s) created ahead of their fire time left unpublished on close; the next"
              + " leader's sweep publishes them once due",
          held.size());
    }
    try {
      // Published but not yet stamped: stamp now, or the next leader's sweep publishes them again.
      stamp(true);
    } catch (RuntimeException e) {
      log.warn(
          "Could not stamp published instances on close; a sweep may publish them again: {}",
          e.toString());
    }
  }
}
