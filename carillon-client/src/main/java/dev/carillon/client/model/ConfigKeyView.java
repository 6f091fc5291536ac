package dev.carillon.client.model;

import dev.carillon.api.Stability;
import java.util.List;

/**
 * One config key ({@code GET /config/{key}}).
 *
 * @param inForce its value in force, or null when it is not set (the services' defaults apply)
 * @param rejected its records the service refuses
 */
@Stability.Evolving
public record ConfigKeyView(String key, ConfigEntry inForce, List<RejectedRecord> rejected) {
  public ConfigKeyView {
    rejected = List.copyOf(rejected);
  }
}
