package dev.carillon.store;

import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.TaskDefinition;
import java.util.Optional;

/**
 * A task row as read back: a valid definition, or the validation error of a row that was edited
 * into an invalid state behind Carillon's back (e.g. by hand in SQL).
 */
public record LoadedTask(
    String id,
    long version,
    Optional<TaskDefinition> definition,
    Optional<InvalidTaskException> error) {

  public static LoadedTask valid(TaskDefinition def) {
    return new LoadedTask(def.id(), def.version(), Optional.of(def), Optional.empty());
  }

  public static LoadedTask invalid(String id, long version, InvalidTaskException e) {
    return new LoadedTask(id, version, Optional.empty(), Optional.of(e));
  }
}
