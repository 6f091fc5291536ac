package dev.carillon.store;

import dev.carillon.model.instance.Instance;
import java.time.Instant;
import java.util.Objects;

/**
 * An instance the archiver moved to the history tables ({@link ArchiveStore}), as it was when it
 * moved: read only, no operator change applies to it.
 *
 * @param archivedAt when it was moved
 */
public record ArchivedInstance(Instance instance, Instant archivedAt) {
  public ArchivedInstance {
    Objects.requireNonNull(instance, "instance");
    Objects.requireNonNull(archivedAt, "archivedAt");
  }
}
