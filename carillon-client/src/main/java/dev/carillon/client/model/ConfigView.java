package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * The config topic as the retry service applies it ({@code GET /config}).
 *
 * @param entries every key with a value in force, sorted by key
 * @param rejected the records the service refuses, in offset order
 */
@Stability.Evolving
public record ConfigView(List<ConfigEntry> entries, List<RejectedRecord> rejected) {
  public ConfigView {
    entries = List.copyOf(entries);
    rejected = List.copyOf(rejected);
  }
}
