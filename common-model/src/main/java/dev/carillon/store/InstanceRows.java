package dev.carillon.store;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import dev.carillon.store.jooq.tables.records.TaskInstanceRecord;
import java.time.Duration;
import org.jooq.Record;

/** {@code task_instance} rows as {@link Instance}s, for every store that reads whole rows. */
final class InstanceRows {
  private InstanceRows() {}

  static Instance toInstance(Record r) {
    TaskInstanceRecord t = r.into(TASK_INSTANCE);
    return new Instance(
        t.getId(),
        t.getTaskId(),
        t.getWindowKey(),
        t.getWindowStart(),
        t.getWindowEnd(),
        t.getScheduledAt(),
        InstanceStatus.valueOf(t.getStatus()),
        t.getAttempt(),
        t.getRetryCount(),
        t.getMaxRetry(),
        t.getNextAttemptAt(),
        t.getLeaseUntil(),
        Duration.ofMillis(t.getTimeoutMs()),
        t.getWorkerId(),
        Origin.valueOf(t.getOrigin()),
        t.getNonRetryable(),
        t.getPolicyVersion(),
        t.getResultSummary(),
        t.getResultTruncated(),
        t.getResultUri(),
        t.getFailReason(),
        t.getStartedAt(),
        t.getFinishedAt(),
        t.getDispatchedAt(),
        t.getCreatedAt(),
        t.getUpdatedAt(),
        t.getProgress(),
        t.getProgressAt(),
        t.getParamsOverride());
  }
}
