package dev.carillon.metrics;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's meter registry (Prometheus) with what every service exports besides its own meters:
 * JVM (memory, GC, threads, class loading, build info), process (CPU, uptime, open files) and, when
 * bound, the Kafka clients' own metrics. The connection pool binds itself ({@code
 * Database#bindMetrics}).
 *
 * <p>Names follow Prometheus conventions: base units in the name ({@code _seconds}, {@code
 * _bytes}), {@code _total} on counters, timestamps as {@code _timestamp_seconds}; every meter has a
 * description, exported as its HELP text.
 *
 * <p>Thread-safe. {@link #close()} stops the binders' background work and closes the registry.
 */
public final class ServiceMeters implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ServiceMeters.class);

  /** Gives a meter registered without a description one that says so and names the meter. */
  static final MeterFilter HELP_FOR_EVERY_METER =
      new MeterFilter() {
        @Override
        public Meter.Id map(Meter.Id id) {
          String d = id.getDescription();
          if (d != null && !d.isBlank()) {
            return id;
          }
          return new Meter.Id(
              id.getName(),
              Tags.of(id.getTags()),
              id.getBaseUnit(),
              id.getName() + " (its library gives no description)",
              id.getType());
        }
      };

  private final PrometheusMeterRegistry registry;
  private final Deque<AutoCloseable> closeables = new ArrayDeque<>();

  private ServiceMeters(PrometheusMeterRegistry registry) {
    this.registry = registry;
  }

  /** A new registry with the JVM and process meters bound. */
  public static ServiceMeters create() {
    ServiceMeters m = new ServiceMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    // Before any meter: Prometheus shows a meter's description as its HELP, and some libraries
    // (Kafka's per-node request latency) give none.
    m.registry.config().meterFilter(HELP_FOR_EVERY_METER);
    new ClassLoaderMetrics().bindTo(m.registry);
    new JvmMemoryMetrics().bindTo(m.registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(m.registry);
    m.closeables.push(gc);
    new JvmThreadMetrics().bindTo(m.registry);
    new JvmInfoMetrics().bindTo(m.registry);
    new ProcessorMetrics().bindTo(m.registry);
    new UptimeMetrics().bindTo(m.registry);
    new FileDescriptorMetrics().bindTo(m.registry);
    return m;
  }

  /** The registry the service's meters go in; {@code /metrics} scrapes it. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Exports a producer's own metrics ({@code kafka_producer_*}) until {@link #close()}. */
  public void bindKafka(Producer<?, ?> producer) {
    bind(new KafkaClientMetrics(producer));
  }

  /** Exports a consumer's own metrics ({@code kafka_consumer_*}) until {@link #close()}. */
  public void bindKafka(Consumer<?, ?> consumer) {
    bind(new KafkaClientMetrics(consumer));
  }

  private void bind(KafkaClientMetrics metrics) {
    metrics.bindTo(registry);
    synchronized (closeables) {
      closeables.push(metrics);
    }
  }

  /** The registry as a plain {@link MeterRegistry}. */
  public MeterRegistry meters() {
    return registry;
  }

  @Override
  public void close() {
    synchronized (closeables) {
      while (!closeables.isEmpty()) {
        AutoCloseable c = closeables.pop();
        try {
          c.close();
        } catch (Exception e) {
          log.warn("Closing the meter binder {} failed: {}", c, e.toString());
        }
      }
    }
    registry.close();
  }
}
