package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;
import java.time.Instant;

/**
 * The value of one config key that is in force: the last valid record of its key on the config
 * topic.
 *
 * <p>{@code at} is UTC only: a config key belongs to the system (or to a retry override), not to a
 * task's wall clock.
 *
 * @param value the value in its canonical JSON form
 * @param offset the record's offset (its version)
 * @param at when it was written
 * @param actor who wrote it ({@code api:<principal>}, {@code schedctl:<user>}), or null when
 *     unknown
 */
@Stability.Evolving
public record ConfigEntry(String key, JsonNode value, long offset, Instant at, String actor) {}
