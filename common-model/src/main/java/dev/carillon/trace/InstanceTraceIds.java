package dev.carillon.trace;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceId;
import io.opentelemetry.api.trace.TraceState;
import java.nio.charset.StandardCharsets;

/**
 * The trace of an instance, derived from its id: every service computes the same trace id and root
 * span id from {@code (namespace, instance id)} alone, so the spans of one instance (its tick and
 * insert in the trigger, every publication, each claim, run and end in a worker, the retry
 * service's decisions and republications) share one trace without any service storing or passing
 * the context: a message that lost its header, an instance created by an operator, or a retry an
 * hour later still lands in the instance's trace.
 *
 * <p>The ids are a 64-bit mix (SplitMix64's finalizer) of the instance id and a hash of the
 * namespace; they look random to a tracing backend, and two deployments that share a backend keep
 * their traces apart by setting different namespaces ({@code tracing.namespace}).
 *
 * <p>Pure and thread-safe.
 */
public final class InstanceTraceIds {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final long seed;

  /**
   * @param namespace what keeps the ids of two deployments apart, e.g. {@code carillon}
   */
  public InstanceTraceIds(String namespace) {
    if (namespace == null || namespace.isBlank()) {
      throw new IllegalArgumentException(
          "tracing.namespace must not be blank, was '" + namespace + "'");
    }
    this.seed = fnv1a(namespace);
  }

  /** The instance's trace id, 32 lower-case hex digits, never all zero. */
  public String traceId(long instanceId) {
    long hi = nonZero(mix(seed ^ mix(instanceId)));
    long lo = nonZero(mix(hi + GOLDEN));
    return TraceId.fromLongs(hi, lo);
  }

  /** The id of the instance's root span (the trigger's tick span), 16 hex digits, never zero. */
  public String rootSpanId(long instanceId) {
    long hi = nonZero(mix(seed ^ mix(instanceId)));
    return SpanId.fromLong(nonZero(mix(mix(hi + GOLDEN) + GOLDEN)));
  }

  /**
   * The instance's root span as a remote parent: what a service parents its spans on when no better
   * context (a message header) is at hand.
   *
   * @param sampled the W3C sampled flag; true when the caller exports spans
   */
  public SpanContext root(long instanceId, boolean sampled) {
    return SpanContext.createFromRemoteParent(
        traceId(instanceId),
        rootSpanId(instanceId),
        sampled ? TraceFlags.getSampled() : TraceFlags.getDefault(),
        TraceState.getDefault());
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static long nonZero(long v) {
    return v == 0 ? 1 : v;
  }

  private static long fnv1a(String s) {
    long h = 0xCBF29CE484222325L;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xFF;
      h *= 0x100000001B3L;
    }
    return h;
  }
}
