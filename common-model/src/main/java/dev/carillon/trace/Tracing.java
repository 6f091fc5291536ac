package dev.carillon.trace;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.common.Clock;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's tracing: OpenTelemetry spans exported over OTLP (HTTP, protobuf) when {@code
 * otel.exporter.otlp.endpoint} is configured, and a no-op otherwise (spans cost nearly nothing and
 * nothing leaves the process).
 *
 * <p>An instance's spans share the trace {@link InstanceTraceIds} derives from its id: the trigger
 * starts the root span with exactly those ids ({@link #startInstanceRoot}), and every later span of
 * the instance is a child of the context its message carries (a W3C {@code traceparent} Kafka
 * header) or, without one, of the derived root ({@link #instanceParent}).
 *
 * <table>
 *   <caption>keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>otel.exporter.otlp.endpoint</td><td>none (tracing off)</td><td>OTLP/HTTP collector,
 *       e.g. {@code http://collector:4318}; spans go to its {@code /v1/traces}</td></tr>
 *   <tr><td>tracing.namespace</td><td>carillon</td><td>mixed into every instance's trace id;
 *       deployments sharing a tracing backend set different ones</td></tr>
 * </table>
 *
 * <p>Thread-safe. {@link #close()} flushes spans still queued (at most {@link #FLUSH_TIMEOUT}).
 */
public final class Tracing implements AutoCloseable {
  /** The collector key; tracing is off without it. */
  public static final String ENDPOINT_KEY = "otel.exporter.otlp.endpoint";

  /** The namespace key. */
  public static final String NAMESPACE_KEY = "tracing.namespace";

  /** Every key {@link #from} reads. */
  public static final List<String> KEYS = List.of(ENDPOINT_KEY, NAMESPACE_KEY);

  /** The namespace unless configured. */
  public static final String DEFAULT_NAMESPACE = "carillon";

  /** The W3C header name, on Kafka records and in the environment of exec agents (upper case). */
  public static final String TRACEPARENT = "traceparent";

  /** How long {@link #close()} waits for spans still queued for export. */
  public static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Spans waiting for export at most; more are dropped (and counted by the SDK), never blocking.
   */
  public static final int MAX_QUEUED_SPANS = 8192;

  /** How long one export call may take. */
  public static final Duration EXPORT_TIMEOUT = Duration.ofSeconds(10);

  public static final AttributeKey<Long> INSTANCE = AttributeKey.longKey("carillon.instance.id");
  public static final AttributeKey<String> TASK = AttributeKey.stringKey("carillon.task.id");
  public static final AttributeKey<String> WINDOW = AttributeKey.stringKey("carillon.window.key");
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("carillon.attempt");

  private static final Logger log = LoggerFactory.getLogger(Tracing.class);
  private static final TextMapGetter<Map<String, String>> MAP_GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
          return carrier == null ? null : carrier.get(key);
        }
      };

  private final Tracer tracer;
  private final SdkTracerProvider provider;
  private final InstanceTraceIds ids;
  private final String description;

  private Tracing(
      Tracer tracer, SdkTracerProvider provider, InstanceTraceIds ids, String description) {
    this.tracer = tracer;
    this.provider = provider;
    this.ids = ids;
    this.description = description;
  }

  /** Tracing off: no-op spans, contexts still derived (for log correlation and agents). */
  public static Tracing off() {
    return new Tracing(
        OpenTelemetry.noop().getTracer("dev.carillon"),
        null,
        new InstanceTraceIds(DEFAULT_NAMESPACE),
        "off");
  }

  /**
   * Reads the tracing keys (see the class comment).
   *
   * @param service the service's name, e.g. {@code trigger}; the resource's {@code service.name} is
   *     {@code carillon-<service>}
   * @param instanceId this process's {@code instance.id}
   * @throws ConfigException naming the key and value when one is wrong
   */
  public static Tracing from(Config c, String service, String instanceId) {
    String namespace = c.string(NAMESPACE_KEY, DEFAULT_NAMESPACE);
    InstanceTraceIds ids;
    try {
      ids = new InstanceTraceIds(namespace);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e);
    }
    Optional<String> endpoint = c.optional(ENDPOINT_KEY);
    if (endpoint.isEmpty()) {
      return new Tracing(OpenTelemetry.noop().getTracer("dev.carillon"), null, ids, "off");
    }
    String url = tracesUrl(endpoint.get());
    SpanExporter exporter =
        OtlpHttpSpanExporter.builder().setEndpoint(url).setTimeout(EXPORT_TIMEOUT).build();
    SpanProcessor processor =
        BatchSpanProcessor.builder(exporter)
            .setExporterTimeout(EXPORT_TIMEOUT)
            .setMaxQueueSize(MAX_QUEUED_SPANS)
            .build();
    Tracing t = sdk(service, instanceId, namespace, ids, processor, "OTLP " + url);
    log.info("Tracing: spans exported to {} (namespace {})", url, namespace);
    return t;
  }

  /**
   * Tracing that hands every ended span to {@code exporter} at once (tests: {@code
   * InMemorySpanExporter}).
   */
  public static Tracing exportingTo(String service, SpanExporter exporter) {
    InstanceTraceIds ids = new InstanceTraceIds(DEFAULT_NAMESPACE);
    return sdk(
        service,
        service,
        DEFAULT_NAMESPACE,
        ids,
        SimpleSpanProcessor.create(exporter),
        "exporter " + exporter.getClass().getSimpleName());
  }

  private static Tracing sdk(
      String service,
      String instanceId,
      String namespace,
      InstanceTraceIds ids,
      SpanProcessor processor,
      String description) {
    Resource resource =
        Resource.getDefault()
            .merge(
                Resource.create(
                    Attributes.of(
                        AttributeKey.stringKey("service.name"),
                        "carillon-" + service,
                        AttributeKey.stringKey("service.namespace"),
                        namespace,
                        AttributeKey.stringKey("service.instance.id"),
                        instanceId)));
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setResource(resource)
            .setSampler(Sampler.parentBased(Sampler.alwaysOn()))
            .setIdGenerator(new InstanceIdGenerator())
            .addSpanProcessor(processor)
            .build();
    return new Tracing(provider.get("dev.carillon"), provider, ids, description);
  }

  /** The collector's traces URL for the configured endpoint. */
  static String tracesUrl(String endpoint) {
    URI uri;
    try {
      uri = URI.create(endpoint.trim());
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "configuration "
              + ENDPOINT_KEY
              + " = '"
              + endpoint
              + "' is not a URL: "
              + e.getMessage());
    }
    if (uri.getScheme() == null
        || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
        || uri.getHost() == null) {
      throw new ConfigException(
          "configuration "
              + ENDPOINT_KEY
              + " = '"
              + endpoint
              + "' must be an http or https URL such as http://collector:4318");
    }
    String s = uri.toString();
    if (s.endsWith("/v1/traces")) {
      return s;
    }
    return (s.endsWith("/") ? s.substring(0, s.length() - 1) : s) + "/v1/traces";
  }

  /** Whether spans leave the process. */
  public boolean enabled() {
    return provider != null;
  }

  /** Where spans go, for the startup log: {@code off} or the exporter. */
  public String describe() {
    return description;
  }

  /** The tracer for this service's spans. */
  public Tracer tracer() {
    return tracer;
  }

  /** The derivation of instance trace ids in force. */
  public InstanceTraceIds ids() {
    return ids;
  }

  /** The current time as OpenTelemetry stamps spans, in epoch nanoseconds. */
  public static long now() {
    return Clock.getDefault().now();
  }

  /**
   * Starts the root span of an instance's trace, with the derived trace and span ids, started at
   * {@code startEpochNanos}. The trigger calls it once per instance it creates.
   */
  public Span startInstanceRoot(String name, long instanceId, long startEpochNanos) {
    SpanContext root = ids.root(instanceId, enabled());
    return InstanceIdGenerator.withIds(
        root,
        () ->
            tracer
                .spanBuilder(name)
                .setNoParent()
                .setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(startEpochNanos, TimeUnit.NANOSECONDS)
                .setAttribute(INSTANCE, instanceId)
                .startSpan());
  }

  /** The instance's derived root as a parent context. */
  public Context instanceParent(long instanceId) {
    return Context.root().with(Span.wrap(ids.root(instanceId, enabled())));
  }

  /**
   * The parent context a message carries: its {@code traceparent} header when it is valid and of
   * this instance's trace, else the instance's derived root (a header from another trace, garbled,
   * or absent never detaches the instance's spans from its trace).
   *
   * @param traceparent the header's value, or {@code null}
   */
  public Context parentOf(String traceparent, long instanceId) {
    if (traceparent != null && !traceparent.isEmpty()) {
      Map<String, String> carrier = Map.of(TRACEPARENT, traceparent);
      Context extracted =
          W3CTraceContextPropagator.getInstance().extract(Context.root(), carrier, MAP_GETTER);
      SpanContext sc = Span.fromContext(extracted).getSpanContext();
      if (sc.isValid() && sc.getTraceId().equals(ids.traceId(instanceId))) {
        return extracted;
      }
    }
    return instanceParent(instanceId);
  }

  /**
   * The W3C {@code traceparent} of a span context ({@code 00-<trace id>-<span id>-<flags>}), or
   * empty when it is not valid.
   */
  public static Optional<String> traceparent(SpanContext sc) {
    if (!sc.isValid()) {
      return Optional.empty();
    }
    Map<String, String> carrier = new HashMap<>(2);
    W3CTraceContextPropagator.getInstance()
        .inject(Context.root().with(Span.wrap(sc)), carrier, Map::put);
    return Optional.ofNullable(carrier.get(TRACEPARENT));
  }

  /** Flushes and stops the exporter (waits at most {@link #FLUSH_TIMEOUT}). Idempotent. */
  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(FLUSH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
}
