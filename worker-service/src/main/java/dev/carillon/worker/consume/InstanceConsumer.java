package dev.carillon.worker.consume;

import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.MalformedMessageException;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.InstanceStore;
import dev.carillon.store.WorkerQueries;
import dev.carillon.worker.WorkerMetrics;
import dev.carillon.worker.run.RunPool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's only Kafka consumer, on its own thread. Each poll batch is handled as one unit:
 *
 * <ol>
 *   <li>records are read in order up to as many valid messages as there are free slots; a malformed
 *       record is logged with its partition and offset, counted and passed over;
 *   <li>the valid ids are claimed in one compare-and-set ({@link InstanceStore#claim}); an id whose
 *       claim is lost is dropped, counted and logged with the instance's current state;
 *   <li>the claimed instances go to the {@link RunPool}, which reads their task definitions in one
 *       query and starts them as run slots free ({@code worker.prefetch} lets a claim take more
 *       than the free slots);
 *   <li>each partition is moved back ({@code seek}) to its first record that was not looked at, and
 *       the offsets up to there are committed (asynchronously).
 * </ol>
 *
 * <p>So claimed work waits on this worker only as far as {@code worker.prefetch} allows: records
 * beyond the free capacity are read again later. When no slot is free the consumer pauses its
 * partitions and keeps polling (to stay in the group) without receiving records; it resumes when a
 * slot frees. When the claim itself fails (database down), nothing is committed and every partition
 * is moved back to the start of the batch.
 */
public final class InstanceConsumer implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(InstanceConsumer.class);

  private final Consumer<String, byte[]> consumer;
  private final String topic;
  private final InstanceStore store;
  private final WorkerQueries queries;
  private final RunPool pool;
  private final WorkerMetrics metrics;
  private final String workerId;
  private final Duration pollTimeout;
  private final Duration errorBackoff;
  private volatile boolean stopping;

  /**
   * @param consumer a consumer with manual commits (see {@code KafkaSettings.consumerProps}); this
   *     object owns and closes it
   * @param pollTimeout the longest one poll blocks, which bounds how late a freed slot is noticed
   * @param errorBackoff the pause after a failed claim before the batch is read again
   */
  public InstanceConsumer(
      Consumer<String, byte[]> consumer,
      String topic,
      InstanceStore store,
      WorkerQueries queries,
      RunPool pool,
      WorkerMetrics metrics,
      String workerId,
      Duration pollTimeout,
      Duration errorBackoff) {
    this.consumer = consumer;
    this.topic = topic;
    this.store = store;
    this.queries = queries;
    this.pool = pool;
    this.metrics = metrics;
    this.workerId = workerId;
    this.pollTimeout = pollTimeout;
    this.errorBackoff = errorBackoff;
  }

  @Override
  public void run() {
    try {
      consumer.subscribe(List.of(topic), new Rebalances());
      while (!stopping) {
        try {
          step();
        } catch (WakeupException e) {
          // stop() was called
        } catch (KafkaException e) {
          log.warn("Kafka error while consuming {}; continuing: {}", topic, e.toString());
          backoff();
        }
      }
    } catch (RuntimeException | Error e) {
      log.error("Consumer of {} stopped unexpectedly", topic, e);
      throw e;
    } finally {
      try {
        consumer.close(Duration.ofSeconds(5));
      } catch (RuntimeException e) {
        log.warn("Closing the consumer failed: {}", e.toString());
      }
      log.info("Stopped consuming {}", topic);
    }
  }

  /** Stops polling; the consumer thread leaves the group and ends soon after. */
  public void stop() {
    stopping = true;
    consumer.wakeup();
  }

  private void step() {
    int free = pool.freeSlots();
    if (free == 0) {
      // Assignment can change on any poll, so pause whatever is assigned now.
      consumer.pause(consumer.assignment());
    } else if (!consumer.paused().isEmpty()) {
      consumer.resume(consumer.paused());
    }
    ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout);
    if (!records.isEmpty()) {
      handle(records, free);
    }
  }

  private record Candidate(ConsumerRecord<String, byte[]> record, InstanceMessage message) {}

  private void handle(ConsumerRecords<String, byte[]> records, int free) {
    Map<TopicPartition, Long> next = new HashMap<>();
    Set<TopicPartition> stoppedEarly = new HashSet<>();
    List<Candidate> candidates = new ArrayList<>();
    for (TopicPartition tp : records.partitions()) {
      for (ConsumerRecord<String, byte[]> r : records.records(tp)) {
        if (candidates.size() >= free) {
          next.put(tp, r.offset());
          stoppedEarly.add(tp);
          break;
        }
        metrics.consumed.increment();
        next.put(tp, r.offset() + 1);
        try {
          candidates.add(new Candidate(r, InstanceMessageCodec.decode(r.value())));
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
    }

    Set<Long> ids = new LinkedHashSet<>();
    candidates.forEach(c -> ids.add(c.message().instanceId()));
    // Read while the claim runs: the two are independent, and both are on every fire's path.
    var definitions =
        pool.readDefinitions(candidates.stream().map(c -> c.message().taskId()).toList());
    List<Instance> claimed;
    try {
      claimed = store.claim(ids, workerId);
    } catch (RuntimeException e) {
      log.warn(
          "Claiming {} instance(s) failed; reading the batch again after {}: {}",
          ids.size(),
          errorBackoff,
          e.toString());
      for (TopicPartition tp : records.partitions()) {
        consumer.seek(tp, records.records(tp).get(0).offset());
      }
      backoff();
      return;
    }
    metrics.claimed.increment(claimed.size());
    pool.startAll(claimed, definitions);
    reportLostClaims(candidates, claimed);

    for (TopicPartition tp : stoppedEarly) {
      consumer.seek(tp, next.get(tp));
    }
    commit(next);
  }

  private void reportLostClaims(List<Candidate> candidates, List<Instance> claimed) {
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
    metrics.lostClaims.increment(lost.size());
    Map<Long, WorkerQueries.ClaimState> states;
    try {
      states = queries.claimStates(lost.stream().map(c -> c.message().instanceId()).toList());
    } catch (RuntimeException e) {
      states = Map.of();
    }
    for (Candidate c : lost) {
      long id = c.message().instanceId();
      WorkerQueries.ClaimState s = states.get(id);
      String why;
      if (won.contains(id)) {
        why = "the same id appeared earlier in this batch and was claimed there";
      } else if (s == null) {
        why = "no instance has this id (deleted, archived, or published to the wrong database)";
      } else {
        why =
            "it is "
                + s.status()
                + " at attempt "
                + s.attempt()
                + (s.workerId() == null ? "" : " (worker " + s.workerId() + ")")
                + ", not PENDING: a duplicate or late delivery";
      }
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
        log.info("Partitions revoked from {}: {}", workerId, partitions);
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
