package dev.carillon.worker.consume;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.MalformedMessageException;
import dev.carillon.model.instance.ClaimedInstance;
import dev.carillon.model.worker.Serves;
import dev.carillon.store.LeaseStore;
import dev.carillon.trace.Tracing;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.DatabaseWatch;
import dev.carillon.worker.LoopProgress;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.run.RunPool;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's only Kafka consumer, on its own thread, subscribed to the instances topics of the
 * queues it serves, as a static member of the workers' group ({@code group.instance.id} is the
 * worker id, so a worker restarted under its id takes its partitions back at once instead of after
 * the dead member's session timeout). Records are taken in order, as many valid messages at a time
 * as the {@link RunPool} has free capacity, and each such group is handled as one unit:
 *
 * <ol>
 *   <li>a malformed record is logged with its partition and offset, counted and passed over;
 *   <li>the valid ids are claimed in one compare-and-set ({@link LeaseStore#claimForRun}, which
 *       leaves alone the instances of a queue or handler this worker does not serve; a group of
 *       {@value #SPLIT_FROM} or more as two halves at once, each started as soon as it is claimed);
 *       an id whose claim is lost is dropped, counted and logged with the instance's current state
 *       (one of a queue or handler not served here stays PENDING for a worker that serves it:
 *       counted apart, see {@link WorkerMetrics#notServed});
 *   <li>the claimed instances go to the {@link RunPool}, which reads their task definitions in one
 *       query and starts them as run slots free ({@code worker.prefetch} lets a claim take more
 *       than the free slots);
 *   <li>the offsets past the group are committed (asynchronously).
 * </ol>
 *
 * <p>A record whose instance is not due yet by the database's clock (a trigger with {@code
 * trigger.create-ahead} publishes {@code Dispatcher.PUBLISH_AHEAD} before the fire time, about
 * Kafka's delivery time) loses its claim like any other, and is then held here, its offset
 * committed with the group's, until the database said it would be due, and claimed again then (a
 * claim sent a little early is refused and held anew; nothing runs early). Held records are bounded
 * ({@value #MAX_HELD}, due within {@link #MAX_HOLD}); beyond that, and when the consumer leaves the
 * group, they are dropped and their rows, still PENDING, are published again by the trigger's
 * dispatch sweep. With {@code worker.claim-ahead} the claim takes instances due within it, so a
 * record that arrives in that span is claimed at once and its run waits on this worker for the
 * instant (see {@code FireTimeStarts}): the claim statement leaves the fire's path too.
 *
 * <p>Records of a poll beyond the free capacity wait here, unclaimed and uncommitted, with every
 * partition paused, and are taken first as capacity frees (a rebalance that takes a partition away
 * drops its waiting records: its next owner reads them from the committed offset). Waiting here
 * instead of seeking back matters under load: a re-read must wait for the fetch already in flight,
 * which the broker holds up to {@code fetch.max.wait.ms} (500 ms) when the other partitions have
 * nothing new. When no capacity is free the consumer waits for it, polling without a timeout only
 * to stay in the group. When a claim itself fails (database down), nothing is committed and its
 * records are taken again after a pause.
 *
 * <p>A worker that cannot reach the database cannot claim, and the records on its partitions would
 * wait for it. So when every statement of this worker (claims, lease renewals, presence refreshes,
 * see {@link DatabaseWatch}) has failed for {@link #LEAVE_AFTER}, the consumer leaves the group:
 * its partitions move to the other workers, and their uncommitted records with them. It joins
 * again, with a new consumer, once a statement works again.
 *
 * <p>Each round of the loop {@linkplain LoopProgress#touch touches} its progress, which {@code
 * /health/live} reads. Stopping leaves the group (also for a static member, which would otherwise
 * keep its partitions until its session times out); a member fenced by another process using the
 * same worker id stops and reports it as fatal.
 *
 * <p>Each message's {@code claim} span (from the claim statement's start to its end, with whether
 * this worker won) continues the trace context of its {@code traceparent} header, and so does the
 * run it starts; a message without a usable header continues its instance's derived root. Claims
 * are timed ({@code carillon.worker.claim.duration}) and so is each instance's wait since its
 * publication ({@code carillon.worker.claim.latency}).
 */
public final class InstanceConsumer implements Runnable {
  /** How long every database statement must have failed before the consumer leaves the group. */
  public static final Duration LEAVE_AFTER = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(InstanceConsumer.class);

  private final Supplier<Consumer<String, byte[]>> consumers;
  private volatile Consumer<String, byte[]> consumer;
  private final DatabaseWatch database;
  private final List<String> topics;
  private final LeaseStore store;
  private final RunPool pool;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Duration pollTimeout;
  private final Duration errorBackoff;
  private final Serves serves;
  private final LoopProgress progress;
  private final java.util.function.Consumer<String> onFatal;
  private final ArrayDeque<ConsumerRecord<String, byte[]>> waiting = new ArrayDeque<>();
  // Records whose instance was not due yet when claimed (published just ahead of its fire time),
  // earliest first: claimed again when the database's clock reaches it. Consumer thread only.
  private final PriorityQueue<Held> notYetDue =
      new PriorityQueue<>(Comparator.comparingLong(Held::dueNanos));
  private final ExecutorService claimer;
  private final Tracing tracing;
  private final Clock clock;
  private volatile boolean stopping;
  private final Duration claimAhead;

  /**
   * @param consumers makes a consumer with manual commits (see {@code KafkaSettings.consumerProps})
   *     at start and on each rejoin; this object owns and closes them
   * @param database whether the worker's statements reach the database
   * @param topics the instances topics of the queues served
   * @param serves the queues and handlers this worker claims
   * @param pollTimeout the longest one poll blocks, which bounds how late a freed slot is noticed
   * @param errorBackoff the pause after a failed claim before the batch is read again
   * @param progress touched on every round of the loop
   * @param onFatal told why when the consumer cannot go on (another process took its member id)
   * @param tracing where the claim spans go
   * @param clock what the claim latency is read on
   * @param claimAhead how far ahead of the database's clock an instance may be claimed ({@code
   *     worker.claim-ahead}; the pool starts such a run on its instant); zero claims only due ones
   */
  public InstanceConsumer(
      Supplier<Consumer<String, byte[]>> consumers,
      DatabaseWatch database,
      List<String> topics,
      LeaseStore store,
      RunPool pool,
      WorkerMetrics metrics,
      String workerId,
      Serves serves,
      Duration pollTimeout,
      Duration errorBackoff,
      LoopProgress progress,
      java.util.function.Consumer<String> onFatal,
      Tracing tracing,
      Clock clock,
      Duration claimAhead) {
    this.consumers = consumers;
    this.claimAhead = claimAhead;
    this.database = database;
    this.topics = List.copyOf(topics);
    this.serves = serves;
    this.progress = progress;
    this.onFatal = onFatal;
    this.tracing = tracing;
    this.clock = clock;
    this.store = store;
    this.pool = pool;
    this.metrics = metrics;
    this.workerId = workerId;
    this.pollTimeout = pollTimeout;
    this.errorBackoff = errorBackoff;
    this.claimer =
        Executors.newSingleThreadExecutor(DaemonThreads.named("carillon-claims-" + workerId));
  }

  /** Groups of at least this many messages are claimed as two halves at once. */
  static final int SPLIT_FROM = 100;

  /**
   * The longest a record whose instance is not due yet is held to be claimed on its instant; one
   * due later is dropped, for the dispatch sweep (it was published far too early).
   */
  static final Duration MAX_HOLD = Duration.ofSeconds(2);

  /** The most records held at once; more are dropped, for the dispatch sweep. */
  static final int MAX_HELD = 10_000;

  /**
   * How many times a record is claimed again at once when its claim was refused and its instance,
   * read right after, is PENDING and due: it became due between the two statements (a record
   * published just ahead of its fire time), and dropping it would leave the instance to the
   * dispatch sweep's re-publication a minute later.
   */
  static final int MAX_DUE_RETRIES = 3;

  /**
   * A record held until its instance is due: {@code dueNanos} on {@link System#nanoTime()}, from
   * the database's own reading of how far ahead the instance was.
   */
  private record Held(Candidate candidate, long dueNanos) {}

  @Override
  public void run() {
    try {
      join();
      while (!stopping) {
        progress.touch();
        if (database.failingFor().compareTo(LEAVE_AFTER) >= 0) {
          leaveWhileTheDatabaseIsLost();
          continue;
        }
        try {
          step();
        } catch (WakeupException e) {
          // stop() was called
        } catch (UnreleasedInstanceIdException e) {
          // The consumer protocol keeps a static member's id for its session after its process
          // died, and a consumer refused with this error stays failed: make a new one.
          log.warn(
              "Kafka still holds the member id {} of a previous process (released when that"
                  + " process's session times out, group.consumer.session.timeout.ms on the"
                  + " broker); joining again in {}: {}",
              workerId,
              errorBackoff,
              e.getMessage());
          leave();
          backoff();
          if (!stopping) {
            join();
          }
        } catch (FencedInstanceIdException e) {
          stopping = true;
          onFatal.accept(
              "another worker process joined the group with this worker's id "
                  + workerId
                  + " (instance.id must be unique per running worker): "
                  + e.getMessage());
        } catch (KafkaException e) {
          log.warn("Kafka error while consuming {}; continuing: {}", topics, e.toString());
          backoff();
        }
      }
    } catch (RuntimeException | Error e) {
      log.error("Consumer of {} stopped unexpectedly", topics, e);
      throw e;
    } finally {
      claimer.shutdown();
      leave();
      log.info("Stopped consuming {} and left the group", topics);
    }
  }

  private void join() {
    Consumer<String, byte[]> c = consumers.get();
    c.subscribe(topics, new Rebalances());
    consumer = c;
  }

  /**
   * Closes the consumer, leaving the group: a static member does not leave on a plain close, and
   * its partitions would wait for its session to time out.
   */
  private void leave() {
    Consumer<String, byte[]> c = consumer;
    consumer = null;
    waiting.clear();
    if (!notYetDue.isEmpty()) {
      log.info(
          "Dropping {} record(s) held for instances not due yet; they stay PENDING and the dispatch"
              + " sweep publishes them again",
          notYetDue.size());
      notYetDue.clear();
    }
    if (c == null) {
      return;
    }
    try {
      c.close(
          CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
              .withTimeout(Duration.ofSeconds(5)));
    } catch (RuntimeException e) {
      log.warn("Closing the consumer failed: {}", e.toString());
    }
  }

  /**
   * Leaves the group until a statement of this worker reaches the database again, then joins with a
   * new consumer; each wait is a round of the loop.
   */
  private void leaveWhileTheDatabaseIsLost() {
    log.warn(
        "Worker {} has not reached the database for {}: leaving the group so that the other"
            + " workers take its partitions; it joins again when the database answers",
        workerId,
        database.failingFor());
    leave();
    while (!stopping && !database.failingFor().isZero()) {
      progress.touch();
      backoff();
    }
    if (!stopping) {
      log.info("Worker {} reaches the database again; joining the group", workerId);
      join();
    }
  }

  /** Stops polling; the consumer thread leaves the group and ends soon after. */
  public void stop() {
    stopping = true;
    Consumer<String, byte[]> c = consumer;
    if (c != null) {
      c.wakeup();
    }
  }

  private void step() {
    int free = pool.freeSlots();
    Duration timeout = pollTimeout;
    if (free == 0 || !waiting.isEmpty()) {
      // Nothing new is needed while records wait here or no room is left. Assignment can change
      // on any poll, so pause whatever is assigned now.
      consumer.pause(consumer.assignment());
      if (free == 0) {
        // Wait for room here, not in poll(): a paused poll sleeps its whole timeout even when
        // runs end meanwhile.
        free = awaitFreeSlots();
      }
      timeout = Duration.ZERO;
    } else if (!consumer.paused().isEmpty()) {
      consumer.resume(consumer.paused());
    }
    // While paused this poll only serves the group; a partition it assigns is not paused yet, and
    // its records wait behind the others.
    Held first = notYetDue.peek();
    if (first != null) {
      // Whole milliseconds up (what poll honours), so that a hold does not spin on empty polls.
      long until = Math.max(0, first.dueNanos() - System.nanoTime());
      Duration untilDue = Duration.ofMillis((until + 999_999) / 1_000_000);
      if (untilDue.compareTo(timeout) < 0) {
        timeout = untilDue;
      }
    }
    ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
    metrics.consumed.increment(records.count());
    records.forEach(waiting::addLast);
    if (free > 0 && !waiting.isEmpty()) {
      handle(free);
    }
    claimDue();
  }

  /**
   * Claims the held records whose instance is due now, as many as there are free slots. Their
   * offsets were committed when they were first handled, so none is committed here.
   */
  private void claimDue() {
    if (notYetDue.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    int free = pool.freeSlots();
    List<Candidate> due = new ArrayList<>();
    while (due.size() < free && !notYetDue.isEmpty() && notYetDue.peek().dueNanos() - now <= 0) {
      due.add(notYetDue.poll().candidate());
    }
    if (due.isEmpty()) {
      return;
    }
    List<Candidate> failed = claimAndStart(due);
    if (!failed.isEmpty()) {
      // Held again, to be tried after the backoff; the claim's failure is logged there.
      long retryAt = System.nanoTime() + errorBackoff.toNanos();
      failed.forEach(c -> notYetDue.add(new Held(c, retryAt)));
      backoff();
    }
  }

  /**
   * A record to claim; {@code retries} counts the claims it lost only because its instance was not
   * due yet when they were sent (see {@link #MAX_DUE_RETRIES}).
   */
  private record Candidate(
      ConsumerRecord<String, byte[]> record, InstanceMessage message, Context trace, int retries) {
    Candidate retried() {
      return new Candidate(record, message, trace, retries + 1);
    }
  }

  private Context traceOf(ConsumerRecord<String, byte[]> r, long instanceId) {
    Header h = r.headers().lastHeader(Tracing.TRACEPARENT);
    String value =
        h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    return tracing.parentOf(value, instanceId);
  }

  private void handle(int free) {
    Map<TopicPartition, Long> next = new HashMap<>();
    List<Candidate> candidates = new ArrayList<>();
    while (candidates.size() < free && !waiting.isEmpty()) {
      ConsumerRecord<String, byte[]> r = waiting.pollFirst();
      next.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
      try {
        InstanceMessage m = InstanceMessageCodec.decode(r.value());
        candidates.add(new Candidate(r, m, traceOf(r, m.instanceId()), 0));
      } catch (MalformedMessageException e) {
        metrics.malformed.increment();
        log.warn(
            "Skipping record {}-{} at offset {}: {}",
            r.topic(),
            r.partition(),
            r.offset(),
            e.reason());
      }
    }
    if (candidates.isEmpty()) {
      commit(next);
      return;
    }

    List<Candidate> failed = claimAndStart(candidates);
    if (!failed.isEmpty()) {
      // Back to the front, in order, and no offset is committed past them.
      for (int i = failed.size() - 1; i >= 0; i--) {
        waiting.addFirst(failed.get(i).record());
      }
      backoff();
      return;
    }
    commit(next);
  }

  /**
   * Claims {@code candidates} (two halves at once from {@link #SPLIT_FROM}) and starts what was
   * won; those lost are explained in the log, or held when their instance is not due yet.
   *
   * @return the candidates of a part whose claim failed (nothing of that part was claimed), in
   *     order; empty when every part's statement ran
   */
  private List<Candidate> claimAndStart(List<Candidate> candidates) {
    // Read while the claims run: they are independent, and all are on every fire's path.
    var definitions =
        pool.readDefinitions(candidates.stream().map(c -> c.message().taskId()).toList());
    // A large group is claimed as two halves at once, on two connections: a claim's database work
    // grows with its rows, and its end is when the group's runs may start.
    List<List<Candidate>> parts =
        candidates.size() < SPLIT_FROM
            ? List.of(candidates)
            : List.of(
                candidates.subList(0, candidates.size() / 2),
                candidates.subList(candidates.size() / 2, candidates.size()));
    CompletableFuture<Claim> second =
        parts.size() > 1 ? CompletableFuture.supplyAsync(() -> claim(parts.get(1)), claimer) : null;
    List<Candidate> failed = new ArrayList<>();
    RuntimeException failure = null;
    for (int k = 0; k < parts.size(); k++) {
      List<Candidate> part = parts.get(k);
      Claim claim;
      try {
        claim = k == 0 ? claim(part) : joinUnwrapped(second);
      } catch (RuntimeException e) {
        failed.addAll(part);
        failure = e;
        continue;
      }
      List<ClaimedInstance> claimed = claim.instances();
      metrics.claimed.increment(claimed.size());
      pool.startAll(claimed, definitions, claim.sentNanos(), traces(part, claimed));
      reportLostClaims(part, claimed);
    }
    if (failure != null) {
      log.warn(
          "Claiming {} instance(s) failed; taking them again after {}: {}",
          failed.size(),
          errorBackoff,
          failure.toString());
    }
    return failed;
  }

  /**
   * The instances one claim statement took, and the {@link System#nanoTime()} just before it was
   * sent, a connection held: their leases begin after it (see RunPool#startAll). Waiting for the
   * connection does not count: while PostgreSQL restarts that wait can take most of a lease.
   */
  private record Claim(List<ClaimedInstance> instances, long sentNanos) {}

  private Claim claim(List<Candidate> part) {
    Set<Long> ids = new LinkedHashSet<>();
    part.forEach(c -> ids.add(c.message().instanceId()));
    long started = System.nanoTime();
    long startedAt = Tracing.now();
    List<ClaimedInstance> claimed;
    AtomicLong sent = new AtomicLong(started);
    try {
      claimed = store.claimForRun(ids, workerId, serves, claimAhead, sent::set);
      database.succeeded();
    } catch (RuntimeException e) {
      database.failed();
      throw e;
    }
    metrics.claimTook(Duration.ofNanos(System.nanoTime() - started));
    Set<Long> won = new HashSet<>();
    claimed.forEach(i -> won.add(i.id()));
    var now = clock.instant();
    for (Candidate c : part) {
      boolean mine = won.contains(c.message().instanceId());
      if (mine) {
        metrics.claimLatency(Duration.between(c.message().publishedAt(), now));
      }
      tracing
          .tracer()
          .spanBuilder("claim")
          .setParent(c.trace())
          .setSpanKind(SpanKind.CONSUMER)
          .setStartTimestamp(startedAt, java.util.concurrent.TimeUnit.NANOSECONDS)
          .setAttribute(Tracing.INSTANCE, c.message().instanceId())
          .setAttribute(Tracing.TASK, c.message().taskId())
          .setAttribute("carillon.claim.won", mine)
          .setAttribute("carillon.worker", workerId)
          .setAttribute("messaging.kafka.offset", c.record().offset())
          .startSpan()
          .end();
    }
    return new Claim(claimed, sent.get());
  }

  /** The trace context of each claimed instance's message. */
  private static Map<Long, Context> traces(List<Candidate> part, List<ClaimedInstance> claimed) {
    Map<Long, Context> byId = new HashMap<>();
    part.forEach(c -> byId.putIfAbsent(c.message().instanceId(), c.trace()));
    Map<Long, Context> out = new HashMap<>();
    claimed.forEach(i -> out.put(i.id(), byId.get(i.id())));
    return out;
  }

  private static Claim joinUnwrapped(CompletableFuture<Claim> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : e;
    }
  }

  private void reportLostClaims(List<Candidate> candidates, List<ClaimedInstance> claimed) {
    Set<Long> won = new HashSet<>();
    claimed.forEach(i -> won.add(i.id()));
    List<Candidate> lost = new ArrayList<>();
    Set<Long> counted = new HashSet<>();
    for (Candidate c : candidates) {
      long id = c.message().instanceId();
      // An id twice in one batch is claimed at most once; the other record lost too.
      if (!won.contains(id) || !counted.add(id)) {
        lost.add(c);
      }
    }
    if (lost.isEmpty()) {
      return;
    }
    Map<Long, LeaseStore.ClaimState> states;
    try {
      states = store.claimStates(lost.stream().map(c -> c.message().instanceId()).toList());
    } catch (RuntimeException e) {
      states = Map.of();
    }
    // After the statement returned: the database read its clock before this, so a hold measured
    // from here never ends before the instance is due by that clock.
    long readNanos = System.nanoTime();
    for (Candidate c : lost) {
      long id = c.message().instanceId();
      LeaseStore.ClaimState s = states.get(id);
      String why;
      if (won.contains(id)) {
        why = "the same id appeared earlier in this batch and was claimed there";
      } else if (s != null
          && s.status().equals("PENDING")
          && s.queue() != null
          && !serves.covers(s.queue(), s.handler())) {
        metrics.notServed.increment();
        log.info(
            "Leaving record {}-{} at offset {} for instance {} of task {}: the task is in queue {}"
                + " with handler {}, and this worker serves queues {} with handlers {}; it stays"
                + " PENDING for a worker that serves it",
            c.record().topic(),
            c.record().partition(),
            c.record().offset(),
            id,
            c.message().taskId(),
            s.queue(),
            s.handler(),
            serves.sortedQueues(),
            serves.sortedHandlers());
        continue;
      } else if (s == null) {
        why = "no instance has this id (deleted, archived, or published to the wrong database)";
      } else if (s.notDueUntil() != null
          && s.status().equals("PENDING")
          && s.notDueFor() != null
          && s.notDueFor().compareTo(MAX_HOLD) <= 0
          && notYetDue.size() < MAX_HELD) {
        // Published just ahead of its fire time (trigger.create-ahead): claimed on the instant (or
        // worker.claim-ahead before it), so that Kafka's delivery is not on the fire's path. A
        // claim sent early is refused again and held anew, never run early: the database's clock
        // decides.
        hold(
            c,
            readNanos + s.notDueFor().minus(claimAhead).toNanos(),
            "due in " + s.notDueFor() + " by the database's clock");
        continue;
      } else if (s.notDueUntil() == null
          && s.status().equals("PENDING")
          && c.retries() < MAX_DUE_RETRIES
          && notYetDue.size() < MAX_HELD) {
        // Refused as not due, due by the time its state was read: claimed again in this round.
        // (Another worker's claim would have left it RUNNING, not PENDING.)
        hold(
            c.retried(),
            readNanos,
            "it became due while its claim was refused; claiming it again at once");
        continue;
      } else if (s.notDueUntil() != null && s.status().equals("PENDING")) {
        why =
            "it is not due until "
                + s.notDueUntil()
                + " by the database's clock (published "
                + (s.notDueFor() == null ? "early" : s.notDueFor() + " early")
                + (notYetDue.size() >= MAX_HELD ? ", and " + MAX_HELD + " records are held" : "")
                + "; a dispatch sweep publishes it again)";
      } else {
        why =
            "it is "
                + s.status()
                + " at attempt "
                + s.attempt()
                + (s.workerId() == null ? "" : " (worker " + s.workerId() + ")")
                + ", not PENDING: a duplicate or late delivery";
      }
      metrics.lostClaims.increment();
      log.info(
          "Dropping record {}-{} at offset {} for instance {} of task {}: {}",
          c.record().topic(),
          c.record().partition(),
          c.record().offset(),
          id,
          c.message().taskId(),
          why);
    }
  }

  /**
   * Holds {@code c} in {@link #notYetDue} until {@code dueNanos} (on {@link System#nanoTime()}),
   * when {@link #claimDue} claims it again; counted as held, and logged with {@code why}.
   */
  private void hold(Candidate c, long dueNanos, String why) {
    notYetDue.add(new Held(c, dueNanos));
    metrics.heldUntilDue.increment();
    log.debug(
        "Holding record {}-{} at offset {} for instance {} of task {}: {}",
        c.record().topic(),
        c.record().partition(),
        c.record().offset(),
        c.message().instanceId(),
        c.message().taskId(),
        why);
  }

  private void commit(Map<TopicPartition, Long> next) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    next.forEach((tp, offset) -> offsets.put(tp, new OffsetAndMetadata(offset)));
    // Asynchronous: the claims, not the offsets, decide who runs an instance, so the next poll
    // need not wait for the broker. A commit lost to a rebalance only means that the next owner
    // reads these records again and loses their claims (logged and counted as lost claims).
    // Kafka sends commits in order, and close() waits for those in flight.
    consumer.commitAsync(
        offsets,
        (committed, error) -> {
          if (error != null) {
            log.warn("Committing offsets {} failed: {}", offsets, error.toString());
          }
        });
  }

  private int awaitFreeSlots() {
    try {
      return pool.awaitFreeSlots(pollTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
      return 0;
    }
  }

  private void backoff() {
    try {
      // Waiting before re-reading a batch the database refused keeps a down database from turning
      // into a hot loop.
      Thread.sleep(errorBackoff.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
    }
  }

  private final class Rebalances implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty()) {
        // Uncommitted: the partitions' next owner reads these records from the committed offset.
        int before = waiting.size();
        waiting.removeIf(r -> partitions.contains(new TopicPartition(r.topic(), r.partition())));
        log.info(
            "Partitions revoked from {}: {} ({} waiting record(s) left to their next owner)",
            workerId,
            partitions,
            before - waiting.size());
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty()) {
        log.info("Partitions assigned to {}: {}", workerId, partitions);
      }
    }
  }
}
