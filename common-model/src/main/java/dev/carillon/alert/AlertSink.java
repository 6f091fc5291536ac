package dev.carillon.alert;

import java.util.concurrent.CompletableFuture;

/**
 * Where alerts go beyond the log line and the metric every alert gets. The one channel today is a
 * webhook ({@link WebhookSink}); a sink delivers on its own threads and never blocks the caller.
 *
 * <p>Implementations are thread-safe.
 */
public interface AlertSink extends AutoCloseable {
  /**
   * Queues {@code alert} for delivery and returns at once.
   *
   * @return completes with {@code true} once the channel acknowledged it, {@code false} when it was
   *     not delivered (no channel, dropped because too many wait, or given up after retries); never
   *     completes exceptionally
   */
  CompletableFuture<Boolean> send(Alert alert);

  /** Closes the channel; alerts still waiting are given up. */
  @Override
  void close();

  /** No channel: every alert completes {@code false} (the log line and metric are all there is). */
  static AlertSink none() {
    return new AlertSink() {
      @Override
      public CompletableFuture<Boolean> send(Alert alert) {
        return CompletableFuture.completedFuture(false);
      }

      @Override
      public void close() {}

      @Override
      public String toString() {
        return "no alert channel";
      }
    };
  }
}
