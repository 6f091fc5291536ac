package dev.carillon.retry.scan;

import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.retry.RetryDecision;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.model.schedule.Window;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.tuning.EffectivePolicy;
import dev.carillon.retry.RetryMetrics;
import dev.carillon.retry.alert.DeadLetters;
import dev.carillon.retry.tuning.Tuning;
import dev.carillon.store.Fence;
import dev.carillon.store.LoadedTask;
import dev.carillon.store.Outcome;
import dev.carillon.store.RetryStore;
import dev.carillon.store.TaskStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FAILED or TIMEOUT → RETRY_WAIT (with {@code next_attempt_at} from the effective policy) or DEAD.
 *
 * <p>The policy is chosen by {@link EffectivePolicy}'s precedence; the failure time is the
 * instance's {@code updated_at} (database time of the failure), the retries consumed are its {@code
 * retry_count}. Both moves are compare-and-sets fenced by status and attempt, so when two scanners
 * decide the same failure only one move lands, and only the winner reports a DEAD.
 */
public final class DecisionScanner {
  /** This scanner's name in metrics, logs and quarantine records. */
  public static final String SCANNER = "decision";

  private static final Logger log = LoggerFactory.getLogger(DecisionScanner.class);

  private final RetryStore store;
  private final TaskStore tasks;
  private final Tuning tuning;
  private final RandomGenerator random;
  private final DeadLetters deadLetters;
  private final RetryMetrics metrics;
  private final int batchSize;
  private final String actor;

  /** What one batch did. */
  public record Result(int retried, int dead) {}

  public DecisionScanner(
      RetryStore store,
      TaskStore tasks,
      Tuning tuning,
      RandomGenerator random,
      DeadLetters deadLetters,
      RetryMetrics metrics,
      int batchSize,
      String actor) {
    this.store = store;
    this.tasks = tasks;
    this.tuning = tuning;
    this.random = random;
    this.deadLetters = deadLetters;
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.actor = actor;
  }

  /**
   * One batch, oldest failure first.
   *
   * <p>A row whose decision cannot be made (its window is malformed, the policy throws) or whose
   * write is refused for its data is quarantined ({@link RetryStore#quarantine}): recorded in its
   * event log, counted ({@code carillon.retry.quarantined{scanner=decision}}), logged once, and
   * left out of every later batch until an operator clears it. The rest of the batch goes on.
   * Trouble around the rows (the database down, a deposed leader) ends the batch instead.
   *
   * @param keepGoing checked before each instance; false stops the batch (leadership lost)
   * @param fence the leader's fence, which every move carries
   */
  public Result scan(BooleanSupplier keepGoing, Fence fence) {
    List<Instance> failed = store.awaitingDecision(batchSize);
    Map<String, LoadedTask> definitions = new HashMap<>();
    int retried = 0;
    int dead = 0;
    for (Instance i : failed) {
      if (!keepGoing.getAsBoolean()) {
        break;
      }
      metrics.scanned(1);
      try (InstanceMdc mdc = InstanceMdc.instance(i.taskId(), i.windowKey(), i.id(), i.attempt())) {
        switch (decide(i, definitions, fence)) {
          case RETRIED -> retried++;
          case DEAD -> dead++;
          case LOST -> {}
        }
      } catch (RuntimeException e) {
        if (!RowFailure.isTheRows(e)) {
          throw e;
        }
        quarantine(i, e, fence);
      }
    }
    return new Result(retried, dead);
  }

  private enum Moved {
    RETRIED,
    DEAD,
    /** Another actor moved the row first. */
    LOST
  }

  private Moved decide(Instance i, Map<String, LoadedTask> definitions, Fence fence) {
    LoadedTask task = definitions.computeIfAbsent(i.taskId(), this::load);
    Optional<RetryPolicy> own = task.definition().map(TaskDefinition::retry);
    EffectivePolicy policy = tuning.effectivePolicy(i.taskId(), own, task.version());
    RetryDecision decision =
        policy
            .policy()
            .decide(
                i.updatedAt(),
                i.retryCount(),
                new Window(i.windowKey(), i.windowStart(), i.windowEnd()),
                i.nonRetryable(),
                jitterSample());
    String why =
        decision.reason()
            + " ["
            + policy.describe(i.taskId())
            + (task.error().isPresent() ? "; task definition invalid" : "")
            + "]";
    if (decision.isDead()) {
      // The row's fail_reason becomes the decision, so keep the last failure in it too.
      String stored = Outcome.clip(why + "; last failure: " + i.failReason());
      if (store.markDead(i, policy.version(), actor, stored, !deadLetters.sendsAlerts(), fence)) {
        deadLetters.report(i, why);
        return Moved.DEAD;
      }
    } else if (store.scheduleRetry(
        i, decision.retryAt().orElseThrow(), policy.version(), actor, why, fence)) {
      metrics.retried(i.taskId());
      return Moved.RETRIED;
    }
    return Moved.LOST;
  }

  private void quarantine(Instance i, RuntimeException e, Fence fence) {
    String problem = RowFailure.describe(e);
    if (store.quarantine(i, SCANNER, problem, actor, fence)) {
      metrics.quarantined(SCANNER);
      log.error(
          "Instance {} of task {} window {} ({} at attempt {}) cannot be decided and is"
              + " quarantined: it stays {} and out of every batch until an operator clears it"
              + " (schedctl quarantine clear {}): {}",
          i.id(),
          i.taskId(),
          i.windowKey(),
          i.status(),
          i.attempt(),
          i.status(),
          i.id(),
          problem,
          e);
    }
  }

  private LoadedTask load(String taskId) {
    return tasks
        .load(taskId)
        .orElseGet(
            () ->
                LoadedTask.invalid(
                    taskId,
                    0,
                    new dev.carillon.model.task.InvalidTaskException(
                        taskId,
                        new dev.carillon.model.task.Problem("id", taskId, "no such task"))));
  }

  private double jitterSample() {
    // RandomGenerator instances are not all thread-safe; passes may run on different threads.
    synchronized (random) {
      return random.nextDouble();
    }
  }
}
