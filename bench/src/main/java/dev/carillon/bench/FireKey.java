package dev.carillon.bench;

import java.time.Instant;
import java.util.Objects;

/**
 * One expected or observed fire: a job and the instant it was scheduled for, in whole milliseconds
 * (Quartz stores milliseconds, so finer precision would make equal fires look different).
 */
public record FireKey(String jobId, long scheduledEpochMilli) {
  public FireKey {
    Objects.requireNonNull(jobId, "jobId");
  }

  public static FireKey of(String jobId, Instant scheduled) {
    return new FireKey(jobId, scheduled.toEpochMilli());
  }

  public Instant scheduled() {
    return Instant.ofEpochMilli(scheduledEpochMilli);
  }
}
