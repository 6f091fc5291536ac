package dev.carillon.trace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TracingTest {
  @Test
  void an_instance_has_one_trace_id_and_root_span_id_in_every_service() {
    InstanceTraceIds a = new InstanceTraceIds("carillon");
    InstanceTraceIds b = new InstanceTraceIds("carillon");
    assertThat(a.traceId(42)).isEqualTo(b.traceId(42)).hasSize(32).matches("[0-9a-f]{32}");
    assertThat(a.rootSpanId(42)).isEqualTo(b.rootSpanId(42)).hasSize(16);
    assertThat(a.root(42, true).isValid()).isTrue();
  }

  @Test
  void ids_differ_between_instances_and_between_namespaces() {
    InstanceTraceIds ids = new InstanceTraceIds("carillon");
    Set<String> traces = new HashSet<>();
    for (long i = 1; i <= 10_000; i++) {
      traces.add(ids.traceId(i));
    }
    assertThat(traces).hasSize(10_000);
    assertThat(new InstanceTraceIds("staging").traceId(1)).isNotEqualTo(ids.traceId(1));
  }

  @Test
  void the_root_span_of_an_instance_has_the_derived_ids_and_children_join_its_trace() {
    InMemorySpanExporter exporter = InMemorySpanExporter.create();
    Map<String, SpanData> byName = new java.util.HashMap<>();
    try (Tracing t = Tracing.exportingTo("test", exporter)) {
      Span root = t.startInstanceRoot("tick", 7, Tracing.now());
      root.end();
      Span child = t.tracer().spanBuilder("run").setParent(t.instanceParent(7)).startSpan();
      child.end();
      Span unrelated = t.tracer().spanBuilder("other").startSpan();
      unrelated.end();
      // Read before close: shutting the exporter down empties it.
      exporter.getFinishedSpanItems().forEach(s -> byName.put(s.getName(), s));
    }
    InstanceTraceIds ids = new InstanceTraceIds(Tracing.DEFAULT_NAMESPACE);
    assertThat(byName.get("tick").getTraceId()).isEqualTo(ids.traceId(7));
    assertThat(byName.get("tick").getSpanId()).isEqualTo(ids.rootSpanId(7));
    assertThat(byName.get("run").getTraceId()).isEqualTo(ids.traceId(7));
    assertThat(byName.get("run").getParentSpanId()).isEqualTo(ids.rootSpanId(7));
    assertThat(byName.get("other").getTraceId()).isNotEqualTo(ids.traceId(7));
  }

  @Test
  void a_header_of_the_instance_trace_is_continued_and_any_other_falls_back_to_the_root() {
    Tracing t = Tracing.off();
    SpanContext root = t.ids().root(9, false);
    String own = "00-" + root.getTraceId() + "-00f067aa0ba902b7-01";
    assertThat(Span.fromContext(t.parentOf(own, 9)).getSpanContext().getSpanId())
        .isEqualTo("00f067aa0ba902b7");
    String foreign = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    for (String header : new String[] {foreign, "garbage", "", null}) {
      Context c = t.parentOf(header, 9);
      assertThat(Span.fromContext(c).getSpanContext().getSpanId()).isEqualTo(root.getSpanId());
    }
  }

  @Test
  void keys_lists_what_from_reads() {
    Config c = Config.of(Map.of());
    Tracing.from(c, "trigger", "t1").close();
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(Tracing.KEYS);
  }

  @Test
  void traceparent_is_the_w3c_form() {
    SpanContext sc = new InstanceTraceIds("carillon").root(5, true);
    assertThat(Tracing.traceparent(sc))
        .hasValue("00-" + sc.getTraceId() + "-" + sc.getSpanId() + "-01");
    assertThat(Tracing.traceparent(SpanContext.getInvalid())).isEmpty();
  }

  @Test
  void tracing_is_off_without_an_endpoint_and_a_bad_endpoint_names_the_key() {
    Tracing off = Tracing.from(Config.of(Map.of()), "trigger", "t1");
    assertThat(off.enabled()).isFalse();
    assertThat(Tracing.tracesUrl("http://collector:4318"))
        .isEqualTo("http://collector:4318/v1/traces");
    assertThat(Tracing.tracesUrl("https://c/v1/traces")).isEqualTo("https://c/v1/traces");
    assertThatThrownBy(
            () -> Tracing.from(Config.of(Map.of(Tracing.ENDPOINT_KEY, "collector:4318")), "x", "y"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(Tracing.ENDPOINT_KEY)
        .hasMessageContaining("collector:4318");
    try (Tracing on =
        Tracing.from(
            Config.of(Map.of(Tracing.ENDPOINT_KEY, "http://127.0.0.1:4318")), "trigger", "t1")) {
      assertThat(on.enabled()).isTrue();
      assertThat(on.describe()).contains("http://127.0.0.1:4318/v1/traces");
    }
  }
}
