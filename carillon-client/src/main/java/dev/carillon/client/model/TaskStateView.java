package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The answer to a pause or a resume.
 *
 * @param changed false when the task already was in that state (nothing was written)
 * @param version the task's version now
 */
@Stability.Evolving
public record TaskStateView(String taskId, boolean paused, boolean changed, long version) {}
