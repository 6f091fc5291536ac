package dev.carillon.trace;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.sdk.trace.IdGenerator;

/**
 * Random ids, except while {@link Tracing#startInstanceRoot} starts an instance's root span on this
 * thread: then the trace and span ids are the ones {@link InstanceTraceIds} derives, so that the
 * root span other services parent on exists.
 */
final class InstanceIdGenerator implements IdGenerator {
  private static final ThreadLocal<SpanContext> NEXT = new ThreadLocal<>();
  private final IdGenerator random = IdGenerator.random();

  /** Runs {@code start} with the ids of {@code root} in force on this thread. */
  static <T> T withIds(SpanContext root, java.util.function.Supplier<T> start) {
    NEXT.set(root);
    try {
      return start.get();
    } finally {
      NEXT.remove();
    }
  }

  @Override
  public String generateSpanId() {
    SpanContext next = NEXT.get();
    return next != null ? next.getSpanId() : random.generateSpanId();
  }

  @Override
  public String generateTraceId() {
    SpanContext next = NEXT.get();
    return next != null ? next.getTraceId() : random.generateTraceId();
  }
}
