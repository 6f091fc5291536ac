package dev.carillon.retry.tuning;

import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.task.Problem;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.model.tuning.EffectivePolicy;
import dev.carillon.model.tuning.InvalidTuningException;
import dev.carillon.model.tuning.RateLimitSettings;
import dev.carillon.model.tuning.TuningKey;
import dev.carillon.model.tuning.TuningValue;
import dev.carillon.model.tuning.Versioned;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.spec.RetryPolicyJson;
import dev.carillon.spec.TuningJson;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The overrides in force, as read from the config topic: retry policies per task and by default,
 * and the rate limits. Records are applied in offset order by one thread ({@link
 * ConfigTopicListener}); scanners read an immutable snapshot, so a pass never sees half a change.
 *
 * <p>An invalid record is rejected with one ERROR line naming the key, the field and the value, and
 * the previous value stays in force. A tombstone removes the override: the task reverts to its
 * definition's policy, the default override disappears, the rate limits revert to the service's
 * configured base. Every change is logged with its version (the record offset).
 */
public final class Tuning {
  private static final Logger log = LoggerFactory.getLogger(Tuning.class);

  /** The state at one moment. */
  record Snapshot(
      Map<String, Versioned<RetryPolicy>> tasks,
      Optional<Versioned<RetryPolicy>> defaultPolicy,
      RateLimitSettings rate,
      long lastOffset) {}

  private final RateLimitSettings base;
  private final Consumer<RateLimitSettings> onRateChange;
  private final RetryMetrics metrics;
  private final Optional<ConfigSigner> signer;
  private volatile Snapshot snapshot;

  /** Tuning that applies records without checking signatures. */
  public Tuning(
      RateLimitSettings base, Consumer<RateLimitSettings> onRateChange, RetryMetrics metrics) {
    this(base, onRateChange, metrics, Optional.empty());
  }

  /**
   * @param base the rate limits from the service configuration, in force until overridden
   * @param onRateChange told the new limits after every rate change (on the applying thread)
   * @param signer when present, only records signed with one of its secrets are applied; an
   *     unsigned or wrongly signed record is rejected like an invalid one
   */
  public Tuning(
      RateLimitSettings base,
      Consumer<RateLimitSettings> onRateChange,
      RetryMetrics metrics,
      Optional<ConfigSigner> signer) {
    this.signer = Objects.requireNonNull(signer, "signer");
    this.base = Objects.requireNonNull(base, "base");
    this.onRateChange = Objects.requireNonNull(onRateChange, "onRateChange");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.snapshot = new Snapshot(Map.of(), Optional.empty(), base, -1);
  }

  /**
   * The policy for a failed instance of {@code taskId}; see {@link EffectivePolicy} for the
   * precedence.
   *
   * @param definitionPolicy the task definition's policy, empty if the definition is invalid
   */
  public EffectivePolicy effectivePolicy(
      String taskId, Optional<RetryPolicy> definitionPolicy, long definitionVersion) {
    Snapshot s = snapshot;
    return EffectivePolicy.choose(
        Optional.ofNullable(s.tasks().get(taskId)),
        definitionPolicy,
        definitionVersion,
        s.defaultPolicy());
  }

  /** The rate limits in force. */
  public RateLimitSettings rateLimits() {
    return snapshot.rate();
  }

  /** The offset of the last record handled (applied or rejected), or -1 before the first. */
  public long lastOffset() {
    return snapshot.lastOffset();
  }

  /** The override of {@code taskId}, if any (for operators and tests). */
  public Optional<Versioned<RetryPolicy>> taskOverride(String taskId) {
    return Optional.ofNullable(snapshot.tasks().get(taskId));
  }

  /** The {@code retry/default} override, if any. */
  public Optional<Versioned<RetryPolicy>> defaultOverride() {
    return snapshot.defaultPolicy();
  }

  /**
   * Applies one record. Called in offset order by a single thread.
   *
   * @param key the record key (may be null: rejected)
   * @param value the record value as text; {@code null} is a tombstone
   * @param offset the record offset, the version of what it sets
   * @return whether the record changed the state
   */
  public boolean apply(String key, String value, long offset) {
    return apply(key, value, null, offset);
  }

  /**
   * Applies one record that carries {@code signature} (the {@link ConfigSigner#HEADER} header, null
   * when absent). With signing on, a record whose signature is missing or wrong is rejected before
   * its value is even parsed.
   */
  public synchronized boolean apply(String key, String value, String signature, long offset) {
    Snapshot s = snapshot;
    Optional<String> unsigned = signer.flatMap(v -> v.problem(key, value, signature));
    if (unsigned.isPresent()) {
      reject(s, key, unsigned.get(), offset);
      return false;
    }
    TuningKey k;
    TuningValue v = null;
    try {
      k = TuningKey.parse(key);
      if (value != null) {
        v = TuningJson.parse(k, value);
      }
    } catch (InvalidTuningException e) {
      reject(
          s,
          key,
          e.problems().stream().map(Problem::toString).collect(Collectors.joining("; ")),
          offset);
      return false;
    } catch (dev.carillon.model.InvalidValueException e) {
      reject(s, key, e.problem().toString(), offset);
      return false;
    }
    Snapshot next = v == null ? removed(s, k, offset) : set(s, k, v, offset);
    snapshot = next;
    metrics.configApplied();
    if (!next.rate().equals(s.rate())) {
      onRateChange.accept(next.rate());
    }
    return true;
  }

  private void reject(Snapshot s, String key, String problems, long offset) {
    metrics.configRejected();
    snapshot = new Snapshot(s.tasks(), s.defaultPolicy(), s.rate(), offset);
    log.error(
        "Rejected config record {} at offset {}: {}; the previous value stays in force ({})",
        key,
        offset,
        problems,
        current(s, key));
  }

  private static String current(Snapshot s, String rawKey) {
    TuningKey k;
    try {
      k = TuningKey.parse(rawKey);
    } catch (RuntimeException e) {
      return "no such setting";
    }
    return switch (k.kind()) {
      case RATE_LIMIT -> "ratelimit " + TuningJson.toJson(s.rate());
      case RETRY_DEFAULT -> describe(s.defaultPolicy(), "no default override");
      case RETRY_TASK ->
          describe(
              Optional.ofNullable(s.tasks().get(k.taskId().orElseThrow())),
              "no override: the task definition's policy");
    };
  }

  private static String describe(Optional<Versioned<RetryPolicy>> v, String none) {
    return v.map(p -> RetryPolicyJson.toJson(p.value()) + " version " + p.version()).orElse(none);
  }

  private Snapshot set(Snapshot s, TuningKey k, TuningValue v, long offset) {
    if (v instanceof TuningValue.RateLimit r) {
      log.info("Config {} = {} applied (version {})", k, TuningJson.toJson(r.settings()), offset);
      return new Snapshot(s.tasks(), s.defaultPolicy(), r.settings(), offset);
    }
    RetryPolicy policy = ((TuningValue.RetryOverride) v).policy();
    Versioned<RetryPolicy> versioned = new Versioned<>(policy, offset);
    log.info("Config {} = {} applied (version {})", k, RetryPolicyJson.toJson(policy), offset);
    if (k.kind() == TuningKey.Kind.RETRY_DEFAULT) {
      return new Snapshot(s.tasks(), Optional.of(versioned), s.rate(), offset);
    }
    Map<String, Versioned<RetryPolicy>> tasks = new HashMap<>(s.tasks());
    tasks.put(k.taskId().orElseThrow(), versioned);
    return new Snapshot(Map.copyOf(tasks), s.defaultPolicy(), s.rate(), offset);
  }

  private Snapshot removed(Snapshot s, TuningKey k, long offset) {
    return switch (k.kind()) {
      case RATE_LIMIT -> {
        log.info(
            "Config {} removed (version {}): rate limits revert to the configured {}",
            k,
            offset,
            TuningJson.toJson(base));
        yield new Snapshot(s.tasks(), s.defaultPolicy(), base, offset);
      }
      case RETRY_DEFAULT -> {
        log.info(
            "Config {} removed (version {}): tasks without a policy are not retried", k, offset);
        yield new Snapshot(s.tasks(), Optional.empty(), s.rate(), offset);
      }
      case RETRY_TASK -> {
        log.info(
            "Config {} removed (version {}): the task reverts to its definition's policy",
            k,
            offset);
        Map<String, Versioned<RetryPolicy>> tasks = new HashMap<>(s.tasks());
        tasks.remove(k.taskId().orElseThrow());
        yield new Snapshot(Map.copyOf(tasks), s.defaultPolicy(), s.rate(), offset);
      }
    };
  }
}
