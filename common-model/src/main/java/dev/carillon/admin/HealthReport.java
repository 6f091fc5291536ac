package dev.carillon.admin;

import java.util.Map;

/**
 * What a service says about itself on {@code /health/live} and {@code /health/ready}.
 *
 * @param live the process works (its loops are not stuck); false makes an orchestrator restart it
 * @param ready it can do its job now (database reachable; for leader-elected services, either
 *     leading or a healthy standby)
 * @param details plain values shown as JSON (leadership, last tick, lag...)
 */
public record HealthReport(boolean live, boolean ready, Map<String, Object> details) {
  public HealthReport {
    details = Map.copyOf(details);
  }
}
