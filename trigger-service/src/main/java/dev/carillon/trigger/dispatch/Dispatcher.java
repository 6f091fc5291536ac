package dev.carillon.trigger.dispatch;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.InstanceStore;
import dev.carillon.trigger.tick.TriggerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes new PENDING instances to Kafka on its own thread and stamps {@code dispatched_at} after
 * Kafka acknowledged them, so that a slow or absent Kafka never delays window creation.
 *
 * <p>The tick hands over the instances it created ({@link #submit}); every {@code sweepEvery} the
 * dispatcher also asks the database for PENDING instances never dispatched, or dispatched more than
 * {@code redispatchAfter} ago ({@link InstanceStore#undispatched}), and publishes those: that is
 * how instances created while Kafka was down, or by a leader that died before publishing, get out.
 * A message may therefore be published twice; the workers' claim is a compare-and-set, so that is
 * harmless.
 *
 * <p>Lifecycle: {@link #start()} once, {@link #close()} once (idempotent). Thread-safe.
 */
public final class Dispatcher implements AutoCloseable {
  /** Largest number of messages in one publish call. */
  public static final int BATCH = 1_000;

  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final InstancePublisher publisher;
  private final InstanceStore store;
  private final Clock clock;
  private final Duration redispatchAfter;
  private final Duration sweepEvery;
  private final BooleanSupplier active;
  private final TriggerMetrics metrics;
  private final LinkedBlockingQueue<Instance> queue = new LinkedBlockingQueue<>();
  private final AtomicReference<Thread> thread = new AtomicReference<>();
  private volatile boolean closed;

  /**
   * @param publisher the Kafka publisher; not closed by this class
   * @param store for {@code markDispatched} and the sweep
   * @param clock stamps {@code publishedAt} on messages
   * @param redispatchAfter a PENDING instance dispatched longer ago than this is published again
   * @param sweepEvery how often to look for undispatched instances
   * @param active whether to sweep now (only the leader sweeps)
   * @param metrics counts publish results
   */
  public Dispatcher(
      InstancePublisher publisher,
      InstanceStore store,
      Clock clock,
      Duration redispatchAfter,
      Duration sweepEvery,
      BooleanSupplier active,
      TriggerMetrics metrics) {
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.store = Objects.requireNonNull(store, "store");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.redispatchAfter = Objects.requireNonNull(redispatchAfter, "redispatchAfter");
    if (sweepEvery == null || sweepEvery.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("sweepEvery must be at least PT0.1S, was " + sweepEvery);
    }
    this.sweepEvery = sweepEvery;
    this.active = Objects.requireNonNull(active, "active");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  /** Queues new instances for publishing; returns at once. */
  public void submit(List<Instance> created) {
    queue.addAll(created);
  }

  /** Instances queued and not yet handed to Kafka. */
  public int backlog() {
    return queue.size();
  }

  /** Starts the publishing thread. */
  public void start() {
    Thread t = new Thread(this::run, "trigger-dispatch");
    t.setDaemon(true);
    if (!thread.compareAndSet(null, t)) {
      throw new IllegalStateException("Dispatcher already started");
    }
    t.start();
  }

  /**
   * Publishes what is queued, then one sweep of undispatched instances. The publishing thread calls
   * it; tests may call it directly on a dispatcher that was not started.
   *
   * @return the number of instances Kafka acknowledged
   */
  public int dispatchOnce() {
    int acked = 0;
    List<Instance> batch = new ArrayList<>();
    while (queue.drainTo(batch, BATCH) > 0) {
      acked += publish(batch);
      batch.clear();
    }
    if (active.getAsBoolean()) {
      // A row left unstamped for a whole sweep interval was not published by this dispatcher's
      // queue (Kafka refused it, or it was created by a leader that died); younger ones are still
      // on their way.
      List<Instance> stranded = store.undispatched(sweepEvery, redispatchAfter, BATCH);
      if (!stranded.isEmpty()) {
        log.info("Publishing {} undispatched PENDING instance(s)", stranded.size());
        acked += publish(stranded);
      }
    }
    return acked;
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
      store.markDispatched(acked);
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

  private void run() {
    long nextSweep = System.nanoTime();
    while (!closed) {
      try {
        long wait = Math.max(0, nextSweep - System.nanoTime());
        Instance first = queue.poll(wait, TimeUnit.NANOSECONDS);
        if (first != null) {
          List<Instance> batch = new ArrayList<>();
          batch.add(first);
          queue.drainTo(batch, BATCH - 1);
          publish(batch);
        }
        if (System.nanoTime() - nextSweep >= 0) {
          nextSweep = System.nanoTime() + sweepEvery.toNanos();
          dispatchOnce();
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        // Database or Kafka trouble: the instances stay undispatched and the next sweep finds them.
        log.error("Dispatching failed; the next sweep retries", e);
      }
    }
  }

  /** Stops the thread; instances still queued are left to the next leader's sweep. */
  @Override
  public void close() {
    closed = true;
    Thread t = thread.get();
    if (t != null) {
      t.interrupt();
      try {
        t.join(Duration.ofSeconds(15).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
