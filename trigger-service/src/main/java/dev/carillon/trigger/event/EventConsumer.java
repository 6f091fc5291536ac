package dev.carillon.trigger.event;

import dev.carillon.election.Fencing;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.ratelimit.TokenBucket;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Fence;
import dev.carillon.store.FencedException;
import dev.carillon.store.WindowStore;
import dev.carillon.trigger.tick.DefinitionCache;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes the topics that event-triggered tasks subscribe to and turns each record into one
 * instance per subscribed task, whose window is derived from the record ({@link EventWindows}), so
 * a redelivered or duplicated record never runs twice. Runs only on the leader: created on the
 * first {@link #pollOnce} and closed by {@link #stop()} on loss of leadership.
 *
 * <p>Per poll: records naming a window already planned in the same poll are coalesced in memory;
 * the rest are inserted in chunks (the UNIQUE window index drops windows that exist); and only then
 * are the offsets committed, so a crash in between redelivers records that the index then drops. A
 * record that cannot name a window (no key, not JSON, field missing) is logged with its partition
 * and offset, counted and skipped. A task's rate limit defers records it has no token for: the
 * partition is rewound to the first deferred record, which is polled again later.
 *
 * <p>Counters: {@code carillon.trigger.events} with tag {@code outcome} = {@code created}, {@code
 * coalesced} (the record's window existed or was planned already), {@code malformed}, {@code
 * deferred}.
 */
public final class EventConsumer {
  /** Instances per insert statement, well below PostgreSQL's 32,767 bind values. */
  static final int CHUNK = 2_000;

  private static final Logger log = LoggerFactory.getLogger(EventConsumer.class);

  private final KafkaSettings kafka;
  private final String groupId;
  private final DefinitionCache tasks;
  private final WindowStore windows;
  private final String actor;
  private final Clock clock;
  private final Consumer<List<Instance>> dispatch;
  private final BooleanSupplier mayCommit;
  private final Fencing fencing;
  private final MeterRegistry registry;
  private final Map<String, TokenBucket> limiters = new HashMap<>();
  private final Object lock = new Object();
  private KafkaConsumer<String, byte[]> consumer;
  private Set<String> subscribed = Set.of();
  private final long taskRefreshNanos;
  private long refreshedAt;
  private List<TaskDefinition> refreshedFrom;
  private Map<String, List<TaskDefinition>> eventTasks = Map.of();

  /**
   * What one poll did.
   *
   * @param records records polled
   * @param created instances created
   * @param coalesced records whose window existed or was already planned
   * @param malformed records skipped because they name no window
   * @param deferred records left in the topic by a rate limit
   */
  public record Poll(int records, int created, int coalesced, int malformed, int deferred) {}

  /**
   * @param groupId the consumer group, shared by every trigger instance so a new leader resumes at
   *     the committed offsets
   * @param tasks the trigger service's definitions (the cache its loops share)
   * @param dispatch receives the new PENDING instances; must not block
   * @param mayCommit asked before writing; false (leadership lost) drops the poll uncommitted
   * @param fencing the leader's fence for each poll's inserts, and where a fenced insert is
   *     reported
   * @param taskRefresh how long the event tasks read from the database are reused; the loop polls
   *     every few milliseconds when idle, and each refresh reads a fingerprint of the whole task
   *     table, so a tick's worth of reuse keeps an idle trigger with many tasks cheap
   */
  public EventConsumer(
      KafkaSettings kafka,
      String groupId,
      DefinitionCache tasks,
      WindowStore windows,
      String actor,
      Clock clock,
      Consumer<List<Instance>> dispatch,
      BooleanSupplier mayCommit,
      Fencing fencing,
      MeterRegistry registry,
      Duration taskRefresh) {
    this.kafka = Objects.requireNonNull(kafka, "kafka");
    this.groupId = Objects.requireNonNull(groupId, "groupId");
    this.tasks = Objects.requireNonNull(tasks, "tasks");
    this.windows = Objects.requireNonNull(windows, "windows");
    this.actor = Objects.requireNonNull(actor, "actor");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.dispatch = Objects.requireNonNull(dispatch, "dispatch");
    this.mayCommit = Objects.requireNonNull(mayCommit, "mayCommit");
    this.fencing = Objects.requireNonNull(fencing, "fencing");
    this.registry = Objects.requireNonNull(registry, "registry");
    for (String outcome : new String[] {"created", "coalesced", "malformed", "deferred"}) {
      counter(registry, outcome);
    }
    this.taskRefreshNanos = taskRefresh.toNanos();
  }

  /** The unpaused event tasks by topic, read again at most every {@code taskRefresh}. */
  private Map<String, List<TaskDefinition>> eventTasks() {
    long now = System.nanoTime();
    if (refreshedFrom != null && now - refreshedAt < taskRefreshNanos) {
      return eventTasks;
    }
    refreshedAt = now;
    List<TaskDefinition> all = tasks.refresh();
    if (all == refreshedFrom) {
      // The cache hands back the same list while no task changed.
      return eventTasks;
    }
    Map<String, List<TaskDefinition>> fresh = new TreeMap<>();
    for (TaskDefinition t : all) {
      if (t.trigger() instanceof EventTrigger e && !t.paused()) {
        fresh.computeIfAbsent(e.topic(), k -> new ArrayList<>()).add(t);
      }
    }
    refreshedFrom = all;
    eventTasks = fresh;
    return fresh;
  }

  /**
   * Polls once (waiting at most {@code timeout}), writes the instances under the leader's fence,
   * then commits offsets.
   *
   * @throws dev.carillon.election.NotLeaderException if this instance does not lead (nothing
   *     polled)
   * @throws FencedException if another leader took over before the insert (reported to {@link
   *     Fencing#fenced}); the consumer is closed uncommitted, so the records go to the next leader
   */
  public Poll pollOnce(Duration timeout) {
    synchronized (lock) {
      Fence fence = fencing.fence();
      Map<String, List<TaskDefinition>> byTopic = eventTasks();
      if (!byTopic.keySet().equals(subscribed)) {
        closeConsumer();
        if (!byTopic.isEmpty()) {
          consumer = new KafkaConsumer<>(kafka.consumerProps(groupId));
          consumer.subscribe(new TreeSet<>(byTopic.keySet()));
          log.info("Event consumer subscribed to {}", byTopic.keySet());
        }
        subscribed = Set.copyOf(byTopic.keySet());
      }
      if (consumer == null) {
        return new Poll(0, 0, 0, 0, 0);
      }
      ConsumerRecords<String, byte[]> records = consumer.poll(timeout);
      if (records.isEmpty()) {
        return new Poll(0, 0, 0, 0, 0);
      }
      try {
        return handle(records, byTopic, fence);
      } catch (FencedException e) {
        closeConsumer();
        fencing.fenced(e);
        throw e;
      }
    }
  }

  private Poll handle(
      ConsumerRecords<String, byte[]> records,
      Map<String, List<TaskDefinition>> byTopic,
      Fence fence) {
    Map<String, NewInstance> planned = new LinkedHashMap<>();
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    Map<TopicPartition, Long> rewind = new HashMap<>();
    int coalesced = 0;
    int malformed = 0;
    int deferred = 0;
    Instant now = clock.instant();
    for (TopicPartition tp : records.partitions()) {
      for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
        List<NewInstance> rows = new ArrayList<>();
        String problem = null;
        for (TaskDefinition t : byTopic.getOrDefault(r.topic(), List.of())) {
          try {
            Window w =
                EventWindows.windowOf(
                    event(t), r.key(), r.value(), Instant.ofEpochMilli(r.timestamp()));
            rows.add(
                NewInstance.pending(
                    t.id(), w, now, Origin.EVENT, t.timeout(), t.retry().maxRetries()));
          } catch (EventWindows.MalformedEventException e) {
            problem = t.id() + ": " + e.getMessage();
          }
        }
        if (problem != null) {
          malformed++;
          log.warn(
              "Malformed event skipped: topic {} partition {} offset {}: {}",
              r.topic(),
              r.partition(),
              r.offset(),
              problem);
          commit.put(tp, new OffsetAndMetadata(r.offset() + 1));
          continue;
        }
        List<NewInstance> fresh = rows.stream().filter(n -> !planned.containsKey(key(n))).toList();
        if (!fresh.isEmpty() && !tokens(fresh, byTopic.get(r.topic()), now)) {
          // Rate limited: leave this record and the rest of the partition in the topic.
          rewind.put(tp, r.offset());
          deferred += records.records(tp).size() - (int) (r.offset() - first(records, tp));
          break;
        }
        coalesced += rows.size() - fresh.size();
        fresh.forEach(n -> planned.put(key(n), n));
        commit.put(tp, new OffsetAndMetadata(r.offset() + 1));
      }
    }
    if (!mayCommit.getAsBoolean()) {
      log.warn("Event poll dropped before its commit: no longer the leader");
      closeConsumer();
      return new Poll(records.count(), 0, 0, 0, 0);
    }
    List<NewInstance> rows = new ArrayList<>(planned.values());
    List<Instance> created = new ArrayList<>();
    for (int i = 0; i < rows.size(); i += CHUNK) {
      created.addAll(
          windows.create(rows.subList(i, Math.min(rows.size(), i + CHUNK)), actor, fence));
    }
    coalesced += rows.size() - created.size();
    // Only now that the instances are committed may Kafka forget the records.
    if (!commit.isEmpty()) {
      consumer.commitSync(commit);
    }
    rewind.forEach(consumer::seek);
    List<Instance> pending =
        created.stream().filter(i -> i.status() == InstanceStatus.PENDING).toList();
    if (!pending.isEmpty()) {
      dispatch.accept(pending);
    }
    count("created", created.size());
    count("coalesced", coalesced);
    count("malformed", malformed);
    count("deferred", deferred);
    if (!created.isEmpty() || malformed > 0 || deferred > 0) {
      log.info(
          "Events: {} record(s), {} instance(s) created, {} coalesced, {} malformed, {} deferred",
          records.count(),
          created.size(),
          coalesced,
          malformed,
          deferred);
    }
    return new Poll(records.count(), created.size(), coalesced, malformed, deferred);
  }

  private static long first(ConsumerRecords<String, byte[]> records, TopicPartition tp) {
    return records.records(tp).get(0).offset();
  }

  private boolean tokens(List<NewInstance> rows, List<TaskDefinition> defs, Instant now) {
    for (NewInstance n : rows) {
      TaskDefinition t =
          defs.stream().filter(d -> d.id().equals(n.taskId())).findFirst().orElseThrow();
      double rate = event(t).ratePerSecond();
      if (rate <= 0) {
        continue;
      }
      TokenBucket l =
          limiters.compute(
              t.id(),
              (k, v) ->
                  v != null && v.perSecond() == rate ? v : TokenBucket.oneSecondOf(rate, now));
      if (!l.tryTake(now)) {
        return false;
      }
    }
    return true;
  }

  /** The trigger of a task taken from {@link #eventTasks()}, which holds only event tasks. */
  private static EventTrigger event(TaskDefinition t) {
    return (EventTrigger) t.trigger();
  }

  private static String key(NewInstance n) {
    return n.taskId() + "/" + n.window().key();
  }

  private void count(String outcome, int n) {
    counter(registry, outcome).increment(n);
  }

  private static io.micrometer.core.instrument.Counter counter(
      MeterRegistry registry, String outcome) {
    return io.micrometer.core.instrument.Counter.builder("carillon.trigger.events")
        .description(
            "event-trigger records read: created, coalesced (window existed), malformed, deferred")
        .tag("outcome", outcome)
        .register(registry);
  }

  /** Closes the Kafka consumer (on loss of leadership); the next poll opens a new one. */
  public void stop() {
    synchronized (lock) {
      closeConsumer();
    }
  }

  private void closeConsumer() {
    if (consumer != null) {
      try {
        consumer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("Closing the event consumer failed: {}", e.toString());
      }
      consumer = null;
      subscribed = Set.of();
    }
  }
}
