package dev.carillon.control.resources;

import dev.carillon.control.web.ApiException;
import dev.carillon.model.task.TaskDefinition;

/** The checks of path parameters and free-text fields that several routes share. */
final class Inputs {
  /** The longest reason recorded with a change. */
  static final int MAX_REASON = 500;

  private Inputs() {}

  /**
   * @throws ApiException 400 naming {@code id} when it is not a positive whole number
   */
  static long instanceId(String text) {
    try {
      long id = Long.parseLong(text);
      if (id > 0) {
        return id;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw ApiException.badRequest("id", text, "must be an instance id: a positive whole number");
  }

  /**
   * @throws ApiException 400 naming {@code field} when {@code text} is not a task id
   */
  static String taskId(String field, String text) {
    if (text == null || !TaskDefinition.ID_PATTERN.matcher(text).matches()) {
      throw ApiException.badRequest(
          field, text, "must be a task id matching " + TaskDefinition.ID_PATTERN.pattern());
    }
    return text;
  }

  /**
   * @throws ApiException 400 naming {@code reason} when it is longer than {@link #MAX_REASON}
   */
  static String reason(String text) {
    if (text != null && text.length() > MAX_REASON) {
      throw ApiException.badRequest(
          "reason", text.substring(0, 40) + "...", "must be at most " + MAX_REASON + " characters");
    }
    return text == null || text.isBlank() ? null : text.strip();
  }
}
