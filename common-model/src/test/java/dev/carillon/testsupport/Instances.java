package dev.carillon.testsupport;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.instance.Origin;
import java.time.Duration;
import java.time.Instant;

/**
 * Instance rows for pure tests, as the database would hold them: name the fields a test is about
 * and take plain defaults for the other twenty (no retries, no lease, no result).
 */
public final class Instances {
  private Instances() {}

  /** A PENDING scheduled row of {@code taskId}'s window {@code windowKey} over [start, end). */
  public static Builder of(long id, String taskId, String windowKey, Instant start, Instant end) {
    return new Builder(id, taskId, windowKey, start, end);
  }

  /** The fields tests set; everything else is null, zero or false. */
  public static final class Builder {
    private final long id;
    private final String taskId;
    private final String windowKey;
    private final Instant windowStart;
    private final Instant windowEnd;
    private Instant scheduledAt;
    private InstanceStatus status = InstanceStatus.PENDING;
    private int attempt;
    private Duration timeout = Duration.ofMinutes(30);
    private String workerId;
    private Origin origin = Origin.SCHEDULE;
    private Instant dispatchedAt;
    private Instant createdAt;

    private Builder(long id, String taskId, String windowKey, Instant start, Instant end) {
      this.id = id;
      this.taskId = taskId;
      this.windowKey = windowKey;
      this.windowStart = start;
      this.windowEnd = end;
      this.scheduledAt = start;
      this.createdAt = start;
    }

    /** When the window fires (default: its start). */
    public Builder scheduledAt(Instant at) {
      this.scheduledAt = at;
      return this;
    }

    /** A claimed row: {@code status} at {@code attempt} (default PENDING, attempt 0). */
    public Builder status(InstanceStatus status, int attempt) {
      this.status = status;
      this.attempt = attempt;
      return this;
    }

    /** The lease length a claim gets (default 30 minutes). */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /** The worker holding the claim (default none). */
    public Builder workerId(String workerId) {
      this.workerId = workerId;
      return this;
    }

    /** Why the row exists (default SCHEDULE). */
    public Builder origin(Origin origin) {
      this.origin = origin;
      return this;
    }

    /** When it was last published to Kafka (default never). */
    public Builder dispatchedAt(Instant at) {
      this.dispatchedAt = at;
      return this;
    }

    /** When the row was inserted, also its last update (default the window's start). */
    public Builder createdAt(Instant at) {
      this.createdAt = at;
      return this;
    }

    public Instance build() {
      return new Instance(
          id,
          taskId,
          windowKey,
          windowStart,
          windowEnd,
          scheduledAt,
          status,
          attempt,
          0,
          0,
          null,
          null,
          timeout,
          workerId,
          origin,
          false,
          null,
          null,
          false,
          null,
          null,
          null,
          null,
          dispatchedAt,
          createdAt,
          createdAt,
          null,
          null,
          null);
    }
  }
}
