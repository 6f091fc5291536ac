package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.logging.InstanceMdc;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.testsupport.RecordedRuns;
import dev.carillon.testsupport.Tasks;
import dev.carillon.trace.InstanceTraceIds;
import dev.carillon.trace.Tracing;
import dev.carillon.worker.run.TimeoutAdvisor;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** A worker's spans, MDC, labelled meters and its warning about a timeout below the P99. */
@Timeout(180)
class WorkerTelemetryTest {
  static WorkerTestKit kit;
  static InMemorySpanExporter spans = InMemorySpanExporter.create();
  static Tracing tracing;
  static WorkerService worker;
  static ListAppender<ILoggingEvent> advice = new ListAppender<>();

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_telemetry", 1);
    Logger logger = (Logger) LoggerFactory.getLogger(TimeoutAdvisor.class);
    advice.start();
    logger.addAppender(advice);
    tracing = Tracing.exportingTo("worker", spans);
    // A cap of two task labels: the third task seen is labelled _other.
    worker = kit.worker("telemetry-1", tracing, 2);
  }

  @AfterAll
  static void tearDown() {
    ((Logger) LoggerFactory.getLogger(TimeoutAdvisor.class)).detachAppender(advice);
    kit.close();
  }

  private static Instance runToSuccess(String task, String key) {
    Instance i = kit.instance(task, key, Duration.ofMinutes(1));
    kit.publish(i);
    await(task + "/" + key + " to succeed")
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () -> assertThat(kit.find(i.id()).status()).isEqualTo(InstanceStatus.SUCCESS));
    return i;
  }

  @Test
  void a_run_continues_its_message_trace_with_claim_run_and_end_and_its_agent_sees_it() {
    kit.task("traced", "counting", "{}");
    Instance i = kit.instance("traced", "t1", Duration.ofMinutes(1));
    // Published as the trigger publishes: a 'publish' span and its traceparent header.
    try (InstancePublisher p =
        new InstancePublisher(
            kit.kafka,
            kit.topic,
            Duration.ofSeconds(10),
            dev.carillon.kafka.QueueRouter.DEFAULT_ONLY,
            tracing,
            "publish")) {
      assertThat(
              p.publish(
                  List.of(InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), Instant.now()))))
          .containsExactly(i.id());
    }
    await("the traced run to end and its end span to be exported")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                spans.getFinishedSpanItems().stream()
                    .anyMatch(
                        s ->
                            s.getName().equals("end")
                                && i.id() == s.getAttributes().get(Tracing.INSTANCE)));
    String traceId = new InstanceTraceIds(Tracing.DEFAULT_NAMESPACE).traceId(i.id());
    List<SpanData> mine =
        spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    SpanData publish = only(mine, "publish");
    SpanData claim = only(mine, "claim");
    SpanData run = only(mine, "run");
    SpanData end = only(mine, "end");
    assertThat(claim.getParentSpanId()).isEqualTo(publish.getSpanId());
    assertThat(
            claim
                .getAttributes()
                .get(io.opentelemetry.api.common.AttributeKey.booleanKey("carillon.claim.won")))
        .isTrue();
    assertThat(run.getParentSpanId()).isEqualTo(publish.getSpanId());
    assertThat(end.getParentSpanId()).isEqualTo(run.getSpanId());
    // The agent's context and logging context name the run.
    CountingAgent.Probe probe = CountingAgent.probe("traced");
    assertThat(probe.lastContext.get().traceparent())
        .hasValue("00-" + traceId + "-" + run.getSpanId() + "-01");
    assertThat(probe.lastMdc.get())
        .containsEntry(InstanceMdc.TASK, "traced")
        .containsEntry(InstanceMdc.WINDOW, "t1")
        .containsEntry(InstanceMdc.INSTANCE, Long.toString(i.id()))
        .containsEntry(InstanceMdc.ATTEMPT, "1")
        .containsEntry(InstanceMdc.TRACE_ID, traceId);
  }

  @Test
  void runs_are_timed_by_task_handler_queue_and_outcome_with_tasks_beyond_the_cap_as_other() {
    for (String t : List.of("label-a", "label-b", "label-c")) {
      kit.task(t, "counting", "{}");
      runToSuccess(t, "m1");
    }
    var registry = worker.registry();
    List<String> labelled =
        registry.find("carillon.worker.run.duration").timers().stream()
            .map(m -> m.getId().getTag("task"))
            .toList();
    // Two labels at most whatever this class ran first, the rest under _other.
    assertThat(labelled.stream().filter(t -> !t.equals("_other")).distinct())
        .hasSizeLessThanOrEqualTo(2);
    assertThat(labelled).contains("_other");
    Timer any = registry.find("carillon.worker.run.duration").tag("outcome", "success").timer();
    assertThat(any).isNotNull();
    assertThat(any.getId().getTag("handler")).isEqualTo("counting");
    assertThat(any.getId().getTag("queue")).isEqualTo("default");
    assertThat(registry.get("carillon.worker.claim.duration").timer().count()).isPositive();
    assertThat(registry.get("carillon.worker.claim.latency").timer().count()).isPositive();
    assertThat(worker.registry().scrape())
        .contains("carillon_worker_run_duration_seconds_bucket{")
        .contains("le=\"86400.0\"")
        .contains("hikaricp_connections_active")
        .contains("kafka_consumer_")
        .contains("jvm_memory_used_bytes");
  }

  @Test
  void a_timeout_below_the_observed_p99_is_warned_once_per_task_version() {
    // Each run waits at the gate, which the test opens once the advisor has read the evidence:
    // a run that ended first would be a 201st success.
    TaskDefinition v1 =
        Tasks.daily("evidence")
            .handler("counting")
            .paramsJson("{\"gate\":\"evidence-gate\"}")
            .timeout(Duration.ofMinutes(2))
            .build();
    kit.tasks.applyAll(List.of(v1));
    // 200 earlier successes of 1 .. 200 s: P99 198 s, above the timeout of 2 minutes.
    RecordedRuns.record(kit.db, "evidence", RecordedRuns.seconds(200));
    Instance first = kit.instance("evidence", "now-0", Duration.ofMinutes(2));
    kit.publish(first);
    await("the advisor's warning")
        .atMost(Duration.ofSeconds(30))
        .until(() -> warnings("evidence").size() >= 1);
    CountingAgent.gate("evidence-gate").countDown();
    for (int n = 1; n < 3; n++) {
      kit.publish(kit.instance("evidence", "now-" + n, Duration.ofMinutes(2)));
    }
    await("three evidence runs to succeed")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                kit.instances.list("evidence", null, null, 500).stream()
                        .filter(i -> i.windowKey().startsWith("now-"))
                        .filter(i -> i.status() == InstanceStatus.SUCCESS)
                        .count()
                    == 3);
    List<ILoggingEvent> warned = warnings("evidence");
    assertThat(warned).hasSize(1);
    assertThat(warned.get(0).getFormattedMessage())
        .contains("Task evidence (version " + kit.tasks.load("evidence").orElseThrow().version())
        .contains("timeout of PT2M")
        .contains("P99 PT3M18S of its last 200 successful runs")
        .contains("suggests a timeout of PT4M57S");
    assertThat(warned.get(0).getMDCPropertyMap()).containsEntry(InstanceMdc.TASK, "evidence");
    assertThat(
            worker.registry().find("carillon.worker.timeouts.below.p99").counters().stream()
                .mapToDouble(c -> c.count())
                .sum())
        .isEqualTo(1);
  }

  private static List<ILoggingEvent> warnings(String task) {
    return advice.list.stream()
        .filter(e -> e.getFormattedMessage().startsWith("Task " + task + " "))
        .toList();
  }

  private static SpanData only(List<SpanData> spans, String name) {
    List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s in %s", name, spans).hasSize(1);
    return named.get(0);
  }
}
