package dev.carillon.trigger.tick;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.alert.Alert;
import dev.carillon.alert.AlertKind;
import dev.carillon.alert.AlertSettings;
import dev.carillon.alert.AlertSink;
import dev.carillon.alert.Alerts;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.testing.SettableClock;
import dev.carillon.testsupport.Tasks;
import dev.carillon.testsupport.TestDatabase;
import dev.carillon.trace.InstanceTraceIds;
import dev.carillon.trace.Tracing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What a tick tells beyond its rows: fire lag by task, late fires, skipped windows, spans. */
@ExtendWith(DevStackExtension.class)
class TickTelemetryTest {
  private Database db;
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private Tracing tracing;
  private final List<Alert> sent = new CopyOnWriteArrayList<>();
  private final SimpleMeterRegistry alertMeters = new SimpleMeterRegistry();

  @BeforeEach
  void open() {
    db = TestDatabase.fresh("trigger_telemetry");
    tracing = Tracing.exportingTo("trigger", spans);
  }

  @AfterEach
  void close() {
    tracing.close();
    db.close();
  }

  private TickTelemetry telemetry(SettableClock clock, AlertSettings settings) {
    AlertSink sink =
        new AlertSink() {
          @Override
          public CompletableFuture<Boolean> send(Alert alert) {
            sent.add(alert);
            return CompletableFuture.completedFuture(true);
          }

          @Override
          public void close() {}
        };
    return new TickTelemetry(
        tracing, new Alerts(sink, settings.repeatAfter(), clock, alertMeters), settings);
  }

  @Test
  void a_downtime_alerts_its_late_fires_once_per_task_and_its_skipped_windows() {
    Instant start = Instant.parse("2026-11-28T00:00:30Z");
    SettableClock clock = new SettableClock(start);
    LoopFixture f =
        new LoopFixture(db, clock, "trigger:a", telemetry(clock, AlertSettings.defaults()));
    f.apply(
        TaskDefinition.builder("minutely")
            .handler("noop")
            .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
            .overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    clock.set(start.plus(Duration.ofHours(5)).minusSeconds(25));
    for (int i = 0; i < 4; i++) {
      f.loop.tickOnce();
    }

    // At 05:00:05 the fire times 04:01 .. 04:59 became instances more than a minute late; 05:00
    // (5 s) did not.
    assertThat(f.counter("carillon.trigger.fires.late", "task", "minutely")).isEqualTo(59);
    assertThat(f.registry.get("carillon.trigger.fire.lag").tag("task", "minutely").timer().count())
        .isEqualTo((long) f.counter("carillon.trigger.instances.inserted", "task", "minutely"));
    Map<AlertKind, List<Alert>> byKind = sent.stream().collect(Collectors.groupingBy(Alert::kind));
    // One of each per task within alert.repeat-after; the repeats are counted, not sent.
    assertThat(byKind.get(AlertKind.LATE_FIRE)).hasSize(1);
    assertThat(byKind.get(AlertKind.LATE_FIRE).get(0).fields())
        .containsEntry("taskId", "minutely")
        .containsEntry("boundMs", 60_000L);
    assertThat(byKind.get(AlertKind.WINDOWS_SKIPPED)).hasSize(1);
    assertThat(byKind.get(AlertKind.WINDOWS_SKIPPED).get(0).fields())
        .containsEntry("windows", 100)
        .containsEntry("firstWindow", "2026-11-28T00:01:00Z");
    assertThat(
            alertMeters
                .get("carillon.alerts.suppressed")
                .tag("kind", "late_fire")
                .counter()
                .count())
        .isEqualTo(58);
  }

  @Test
  void a_per_task_bound_makes_a_small_lag_late() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T08:00:00Z"));
    AlertSettings strict =
        new AlertSettings(
            Optional.empty(),
            Duration.ofMinutes(1),
            Map.of("strict", Duration.ofSeconds(2)),
            Duration.ofMinutes(5),
            Duration.ZERO);
    LoopFixture f = new LoopFixture(db, clock, "trigger:a", telemetry(clock, strict));
    f.apply(
        TaskDefinition.builder("strict")
            .handler("noop")
            .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE),
        TaskDefinition.builder("lenient")
            .handler("noop")
            .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE));
    f.loop.tickOnce();
    clock.set(Instant.parse("2026-11-28T08:01:05Z")); // both fire at 08:01, 5 s late
    f.loop.tickOnce();
    assertThat(f.counter("carillon.trigger.fires.late", "task", "strict")).isEqualTo(1);
    assertThat(f.counter("carillon.trigger.fires.late", "task", "lenient")).isZero();
    assertThat(sent).extracting(a -> a.fields().get("taskId")).containsExactly("strict");
  }

  @Test
  void each_new_instance_gets_its_root_tick_span_and_an_insert_span_with_the_derived_ids() {
    SettableClock clock = new SettableClock(Instant.parse("2026-11-28T08:00:00Z"));
    LoopFixture f =
        new LoopFixture(db, clock, "trigger:a", telemetry(clock, AlertSettings.defaults()));
    f.apply(
        TaskDefinition.builder("traced")
            .handler("noop")
            .cron("0 * * * * ?", Tasks.UTC, WindowKind.EVERY_FIRE)
            .overlap(OverlapPolicy.ALLOW));
    f.loop.tickOnce();
    clock.set(Instant.parse("2026-11-28T08:03:00Z"));
    f.loop.tickOnce();
    List<Instance> pending =
        f.instances.list("traced", null, null, 10).stream()
            .filter(i -> i.status() == InstanceStatus.PENDING)
            .toList();
    assertThat(pending).hasSize(3);
    InstanceTraceIds ids = new InstanceTraceIds(Tracing.DEFAULT_NAMESPACE);
    List<SpanData> finished = spans.getFinishedSpanItems();
    for (Instance i : pending) {
      List<SpanData> mine =
          finished.stream().filter(s -> s.getTraceId().equals(ids.traceId(i.id()))).toList();
      assertThat(mine).extracting(SpanData::getName).containsExactlyInAnyOrder("tick", "insert");
      SpanData tick = mine.stream().filter(s -> s.getName().equals("tick")).findFirst().get();
      SpanData insert = mine.stream().filter(s -> s.getName().equals("insert")).findFirst().get();
      assertThat(tick.getSpanId()).isEqualTo(ids.rootSpanId(i.id()));
      assertThat(tick.getParentSpanContext().isValid()).isFalse();
      assertThat(insert.getParentSpanId()).isEqualTo(tick.getSpanId());
      assertThat(tick.getAttributes().get(Tracing.WINDOW)).isEqualTo(i.windowKey());
      assertThat(insert.getStartEpochNanos()).isGreaterThanOrEqualTo(tick.getStartEpochNanos());
      assertThat(insert.getEndEpochNanos()).isLessThanOrEqualTo(tick.getEndEpochNanos());
    }
  }
}
