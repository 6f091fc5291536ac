package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;

/**
 * The answer to a config set or unset.
 *
 * @param value the value sent in canonical form, or null for an unset (a tombstone)
 * @param offset the record's offset
 */
@Stability.Evolving
public record ConfigChange(String key, JsonNode value, long offset) {}
