package dev.carillon.control.resources;

import dev.carillon.control.ControlPlane;
import dev.carillon.control.web.ApiException;
import java.time.Duration;
import java.util.List;

/**
 * Paces a bulk operation at {@code perSecond} items: the first batch goes at once, each next one
 * when its share of the second has come, measured on the control plane's clock and waited with its
 * sleeper.
 */
final class Pacer {
  private final ControlPlane plane;
  private final long startNanos;
  private long done;

  Pacer(ControlPlane plane) {
    this.plane = plane;
    this.startNanos = nanos();
  }

  /** The batch size that keeps one batch to about a second's worth. */
  int batch() {
    return (int) Math.max(1, Math.min(100, Math.floor(plane.bulkPerSecond())));
  }

  /** Waits until {@code done} items may have gone, then counts {@code next} more. */
  void before(int next) {
    long dueNanos = (long) (done * 1e9 / plane.bulkPerSecond());
    long waitNanos = dueNanos - (nanos() - startNanos);
    if (waitNanos > 0) {
      try {
        plane.sleeper().sleep(Duration.ofNanos(waitNanos));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw ApiException.of(503, "the server is stopping", List.of());
      }
    }
    done += next;
  }

  private long nanos() {
    Duration d = Duration.between(java.time.Instant.EPOCH, plane.clock().instant());
    return d.toNanos();
  }
}
