package dev.carillon.store;

import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import java.util.Objects;

/**
 * A DEAD instance whose alert has not been acknowledged yet ({@code alerted_at} is empty), with
 * what its alert reports besides the row.
 *
 * @param instance the DEAD row; its {@code failReason} is the decision that made it DEAD, with the
 *     policy and the last failure
 * @param lastStatus the status it failed with last ({@code FAILED} or {@code TIMEOUT}), or null
 *     when the event log no longer has it
 * @param lastReason why that attempt failed, as its transition recorded it, or null
 */
public record DeadAlert(Instance instance, InstanceStatus lastStatus, String lastReason) {
  public DeadAlert {
    Objects.requireNonNull(instance, "instance");
  }

  /** {@code <instance id>/<attempt>}: the same for every delivery of this alert. */
  public String idempotencyKey() {
    return instance.id() + "/" + instance.attempt();
  }
}
