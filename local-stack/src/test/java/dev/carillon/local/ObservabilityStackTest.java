package dev.carillon.local;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static dev.carillon.store.jooq.Tables.TRIGGER_CURSOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.model.retry.ImmediateRetry;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.retry.RetryService;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.trace.InstanceTraceIds;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.TriggerService;
import dev.carillon.worker.WorkerService;
import dev.carillon.worker.WorkerSettings;
import dev.carillon.worker.plugin.PluginRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.yaml.snakeyaml.Yaml;

/**
 * The trigger, a worker and the retry service on devstack, scraped and traced as an operator would:
 * every histogram has buckets whose counts move with the work, task labels are present and capped,
 * every metric has HELP, the shipped alert rules, dashboard and metric reference name only metrics
 * the scrape has, the alerts reach a real webhook, and one retried instance's spans from tick to
 * end share one trace across the three services, and an exec agent is handed its run's trace
 * context.
 */
@Timeout(300)
class ObservabilityStackTest {
  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int TASK_LABELS = 3;
  private static final List<String> TASKS =
      List.of(
          "obs-fast",
          "obs-flaky",
          "obs-doomed",
          "obs-catchup",
          "obs-extra-1",
          "obs-extra-2",
          "obs-exec");

  /** Micrometer exports a histogram family and a {@code _max} gauge beside it. */
  private static final List<String> HISTOGRAMS =
      List.of(
          "carillon_trigger_fire_lag_seconds",
          "carillon_trigger_tick_duration_seconds",
          "carillon_worker_run_duration_seconds",
          "carillon_worker_claim_duration_seconds",
          "carillon_worker_claim_latency_seconds");

  private static final Pattern METRIC =
      Pattern.compile("\\b((?:carillon|hikaricp|kafka|jvm|process|system)_[a-z0-9_]+)\\b");

  private static DevStack stack;
  private static Database db;
  private static HttpServer webhook;
  private static final List<String> alerts = new CopyOnWriteArrayList<>();
  private static final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private static TriggerService trigger;
  private static WorkerService worker;
  private static RetryService retry;
  private static Path root;

  /** Where the exec agent writes each run's idempotency key and TRACEPARENT. */
  private static Path execSeen;

  @BeforeAll
  static void start() throws IOException {
    root = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(root.resolve("deploy"))) {
      root = root.getParent();
    }
    execSeen = root.resolve("local-stack/target/obs-exec-traceparents.txt");
    Files.deleteIfExists(execSeen);
    webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    webhook.createContext(
        "/alerts",
        ex -> {
          try (InputStream in = ex.getRequestBody()) {
            alerts.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          }
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    webhook.start();

    stack = DevStack.shared();
    String url = stack.createDatabase("observability");
    db = Database.open(new DbSettings(url, stack.dbUser(), stack.dbPassword(), 4));
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String instances = "obs.instances." + unique;
    stack.createTopic(instances, 2);

    TaskStore tasks = new TaskStore(db.dsl());
    tasks.applyAll(
        List.of(
            cron("obs-fast", "* * * * * ?", "noop", "{}").build(),
            cron("obs-flaky", "0/2 * * * * ?", "sleep", "{\"duration\":\"50ms\",\"failFirst\":1}")
                .retry(new ImmediateRetry(2))
                .build(),
            cron(
                    "obs-doomed",
                    "0/3 * * * * ?",
                    "sleep",
                    "{\"duration\":\"10ms\",\"failFirst\":1000000,\"nonRetryable\":true}")
                .build(),
            cron("obs-catchup", "0 * * * * ?", "noop", "{}")
                .catchup(Duration.ofMinutes(10))
                .build(),
            cron("obs-extra-1", "0/5 * * * * ?", "noop", "{}").build(),
            cron("obs-extra-2", "0/5 * * * * ?", "noop", "{}").build(),
            // An agent in another process: it records the trace context the worker gives it.
            cron(
                    "obs-exec",
                    "0/2 * * * * ?",
                    "exec",
                    "{\"exec\":{\"command\":[\"/bin/sh\",\"-c\",\"echo"
                        + " \\\"$CARILLON_IDEMPOTENCY_KEY $TRACEPARENT\\\" >> "
                        + execSeen
                        + "\"]}}")
                .build()));
    // The trigger was away for an hour as far as obs-catchup knows: 50 windows are older than its
    // catch-up limit (SKIPPED, alerted) and 10 run late.
    db.dsl()
        .insertInto(TRIGGER_CURSOR)
        .set(TRIGGER_CURSOR.TASK_ID, "obs-catchup")
        .set(TRIGGER_CURSOR.EVALUATED_UNTIL, Instant.now().minus(Duration.ofHours(1)))
        .set(TRIGGER_CURSOR.EVALUATED_OFFSET_SECONDS, 0)
        .execute();

    Map<String, String> common = new HashMap<>();
    common.put("db.url", url);
    common.put("db.user", stack.dbUser());
    common.put("db.password", stack.dbPassword());
    common.put("db.pool-size", "4");
    common.put("kafka.bootstrap", stack.kafkaBootstrap());
    common.put("zk.connect", stack.zkConnect());
    common.put("admin.port", "0");
    common.put("kafka.instances-partitions", "2");
    common.put(TaskLabel.KEY, Integer.toString(TASK_LABELS));
    common.put("alert.webhook", "http://127.0.0.1:" + webhook.getAddress().getPort() + "/alerts");
    common.put("alert.late-fire-after-tasks", "obs-fast=1ms");
    common.put("alert.repeat-after", "1h");

    Map<String, String> t = new HashMap<>(common);
    t.put("instance.id", "obs-trigger");
    t.put("trigger.topic", instances);
    t.put("api.port", "0");
    t.put("api.bind-address", "127.0.0.1");
    t.put("api.insecure-local", "true");
    trigger =
        TriggerService.start(
            Config.of(t), Clock.systemUTC(), Tracing.exportingTo("trigger", spans));

    Map<String, String> w = new HashMap<>(common);
    w.put("instance.id", "obs-worker");
    w.put("worker.topic", instances);
    w.put("worker.group", "obs-workers-" + unique);
    w.put("worker.concurrency", "8");
    Config wc = Config.of(w);
    WorkerSettings ws = WorkerSettings.from(wc);
    worker =
        WorkerService.start(
            ws,
            PluginRegistry.load(ObservabilityStackTest.class.getClassLoader(), ws.pluginDir()),
            Clock.systemUTC(),
            Tracing.exportingTo("worker", spans),
            TaskLabel.from(wc));

    Map<String, String> r = new HashMap<>(common);
    r.put("instance.id", "obs-retry");
    r.put("retry.instances-topic", instances);
    stack.createCompactedTopic("obs.config." + unique);
    r.put("retry.config-topic", "obs.config." + unique);
    r.put("retry.scan-interval", "200ms");
    retry =
        RetryService.start(
            Config.of(r),
            Clock.systemUTC(),
            RandomGenerator.of("L64X128MixRandom"),
            Tracing.exportingTo("retry", spans));
  }

  private static TaskDefinition.Builder cron(
      String id, String cron, String handler, String params) {
    return TaskDefinition.builder(id)
        .handler(handler)
        .paramsJson(params)
        .cron(cron, ZoneOffset.UTC, WindowKind.EVERY_FIRE)
        .overlap(OverlapPolicy.ALLOW)
        .timeout(Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : new AutoCloseable[] {retry, worker, trigger, db}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // closing the rest matters more
      }
    }
    webhook.stop(0);
  }

  private static int count(String task, InstanceStatus status) {
    return db.dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE.TASK_ID.eq(task).and(TASK_INSTANCE.STATUS.eq(status.name())));
  }

  private static Long retriedSuccess() {
    return db.dsl()
        .select(TASK_INSTANCE.ID)
        .from(TASK_INSTANCE)
        .where(TASK_INSTANCE.TASK_ID.eq("obs-flaky"))
        .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))
        .and(TASK_INSTANCE.RETRY_COUNT.ge(1))
        .orderBy(TASK_INSTANCE.ID)
        .limit(1)
        .fetchOne(TASK_INSTANCE.ID);
  }

  /** Every task has run, failed, retried, died or been skipped as it should. */
  private static void awaitTheWork() {
    await("every kind of work to have happened")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(250))
        .untilAsserted(
            () -> {
              assertThat(count("obs-fast", InstanceStatus.SUCCESS)).isGreaterThanOrEqualTo(3);
              assertThat(count("obs-doomed", InstanceStatus.DEAD)).isGreaterThanOrEqualTo(1);
              assertThat(count("obs-catchup", InstanceStatus.SKIPPED)).isGreaterThanOrEqualTo(1);
              assertThat(count("obs-extra-2", InstanceStatus.SUCCESS)).isGreaterThanOrEqualTo(1);
              assertThat(count("obs-exec", InstanceStatus.SUCCESS)).isGreaterThanOrEqualTo(1);
              assertThat(retriedSuccess()).isNotNull();
              assertThat(events()).contains("fire.late", "windows.skipped", "instance.dead");
            });
  }

  private static Set<String> events() {
    Set<String> out = new LinkedHashSet<>();
    for (String a : alerts) {
      out.add(json(a).get("event").asText());
    }
    return out;
  }

  private static JsonNode json(String s) {
    try {
      return new ObjectMapper().readTree(s);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + s, e);
    }
  }

  private static Map<String, Scrape> scrapeAll() throws Exception {
    Map<String, Scrape> out = new LinkedHashMap<>();
    out.put("trigger", scrape(trigger.adminPort()));
    out.put("worker", scrape(worker.adminPort()));
    out.put("retry", scrape(retry.adminPort()));
    return out;
  }

  private static Scrape scrape(int port) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return new Scrape(r.body());
  }

  private static double total(Map<String, Scrape> scrapes, String name) {
    return scrapes.values().stream().mapToDouble(s -> s.sum(name)).sum();
  }

  @Test
  void the_scrape_has_buckets_that_move_with_the_work_capped_labels_help_and_every_shipped_name()
      throws Exception {
    awaitTheWork();
    retry.refreshStats();
    Map<String, Scrape> first = scrapeAll();
    Path dump = root.resolve("local-stack/target");
    for (var e : first.entrySet()) {
      Files.writeString(dump.resolve("scrape-" + e.getKey() + ".txt"), e.getValue().text);
    }

    // Every histogram has buckets up to +Inf, and the signals' histograms have counts.
    for (Scrape s : first.values()) {
      s.types.forEach(
          (family, type) -> {
            if (type.equals("histogram")) {
              assertThat(s.labelValues(family + "_bucket", "le"))
                  .as("buckets of %s", family)
                  .hasSizeGreaterThan(5)
                  .contains("+Inf");
            }
          });
    }
    for (String h : HISTOGRAMS) {
      assertThat(total(first, h + "_count")).as("%s_count", h).isPositive();
      assertThat(first.values().stream().anyMatch(s -> "histogram".equals(s.types.get(h))))
          .as("%s is a histogram", h)
          .isTrue();
    }

    // Labels present and capped: at most TASK_LABELS task ids per metric, the rest _other.
    Scrape w = first.get("worker");
    Scrape t = first.get("trigger");
    assertThat(w.samples("carillon_worker_run_duration_seconds_count"))
        .allSatisfy(
            s -> assertThat(s.labels()).containsKeys("task", "handler", "queue", "outcome"));
    for (var check :
        List.of(
            Map.entry(t, "carillon_trigger_fire_lag_seconds_count"),
            Map.entry(t, "carillon_trigger_instances_inserted_total"),
            Map.entry(w, "carillon_worker_run_duration_seconds_count"))) {
      Set<String> labels = check.getKey().labelValues(check.getValue(), "task");
      assertThat(labels).as("task labels of %s", check.getValue()).contains(TaskLabel.OTHER);
      assertThat(labels.stream().filter(l -> !l.equals(TaskLabel.OTHER)))
          .as("task labels of %s", check.getValue())
          .hasSizeLessThanOrEqualTo(TASK_LABELS)
          .isSubsetOf(TASKS);
    }
    assertThat(first.get("retry").labelValues("carillon_retry_dead_total", "task")).isNotEmpty();
    assertThat(first.get("retry").labelValues("carillon_instances", "status"))
        .contains("pending", "running", "retry_wait", "dead");

    // No metric without HELP.
    for (var e : first.entrySet()) {
      e.getValue()
          .types
          .keySet()
          .forEach(
              family ->
                  assertThat(e.getValue().help.get(family))
                      .as("HELP of %s on the %s", family, e.getKey())
                      .isNotBlank());
    }
    // JVM, process, pool and Kafka client meters on every service.
    for (var e : first.entrySet()) {
      Set<String> names = e.getValue().sampleNames();
      assertThat(names)
          .as("the %s's scrape", e.getKey())
          .contains(
              "jvm_memory_used_bytes",
              "process_cpu_usage",
              "process_uptime_seconds",
              "hikaricp_connections_active")
          .anySatisfy(n -> assertThat(n).startsWith("kafka_producer_"));
    }
    assertThat(w.sampleNames()).anySatisfy(n -> assertThat(n).startsWith("kafka_consumer_"));

    // The rules, the dashboard and the metric reference name only what the scrape has.
    Set<String> names = new LinkedHashSet<>();
    first.values().forEach(s -> names.addAll(s.sampleNames()));
    Set<String> shipped = new LinkedHashSet<>();
    shipped.addAll(ruleMetrics());
    shipped.addAll(dashboardMetrics());
    assertThat(shipped).hasSizeGreaterThan(10);
    assertThat(names).as("names in the scrape").containsAll(shipped);
    checkMetricReference(first);

    // The counts move with the work.
    int before = count("obs-fast", InstanceStatus.SUCCESS);
    await("three more runs of obs-fast")
        .atMost(WAIT)
        .until(() -> count("obs-fast", InstanceStatus.SUCCESS) >= before + 3);
    Map<String, Scrape> second = scrapeAll();
    for (String h : HISTOGRAMS) {
      if (h.equals("carillon_trigger_tick_duration_seconds")
          || h.startsWith("carillon_trigger_fire_lag")
          || h.startsWith("carillon_worker")) {
        assertThat(total(second, h + "_count"))
            .as("%s_count after more work", h)
            .isGreaterThan(total(first, h + "_count"));
      }
    }
  }

  private List<String> ruleMetrics() throws IOException {
    Map<String, Object> doc =
        new Yaml().load(Files.readString(root.resolve("deploy/prometheus/carillon-rules.yml")));
    List<String> out = new ArrayList<>();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> groups = (List<Map<String, Object>>) doc.get("groups");
    for (Map<String, Object> g : groups) {
      @SuppressWarnings("unchecked")
      List<Map<String, Object>> rules = (List<Map<String, Object>>) g.get("rules");
      for (Map<String, Object> r : rules) {
        assertThat(r).containsKeys("alert", "expr", "annotations");
        out.addAll(metrics(r.get("expr").toString()));
      }
    }
    return out;
  }

  private List<String> dashboardMetrics() throws IOException {
    JsonNode dash =
        new ObjectMapper().readTree(root.resolve("deploy/grafana/carillon.json").toFile());
    List<String> out = new ArrayList<>();
    for (JsonNode panel : dash.get("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.addAll(metrics(target.get("expr").asText()));
      }
    }
    return out;
  }

  private static List<String> metrics(String expr) {
    List<String> out = new ArrayList<>();
    Matcher m = METRIC.matcher(expr);
    while (m.find()) {
      out.add(m.group(1));
    }
    assertThat(out).as("metrics in %s", expr).isNotEmpty();
    return out;
  }

  /**
   * docs/operations.md's metric reference lists every Carillon family in the scrape (a histogram's
   * {@code _max} gauge goes with it), and nothing the scrape does not have.
   */
  private void checkMetricReference(Map<String, Scrape> scrapes) throws IOException {
    String guide = Files.readString(root.resolve("docs/operations.md"));
    int start = guide.indexOf("## Metric reference");
    assertThat(start).as("docs/operations.md has a metric reference").isPositive();
    int end = guide.indexOf("\n## ", start + 5);
    String section = guide.substring(start, end < 0 ? guide.length() : end);
    Set<String> documented = new LinkedHashSet<>();
    Matcher m = Pattern.compile("\\| `(carillon_[a-z0-9_]+)` \\|").matcher(section);
    while (m.find()) {
      documented.add(m.group(1));
    }
    Set<String> families = new LinkedHashSet<>();
    scrapes.values().forEach(s -> families.addAll(s.types.keySet()));
    Set<String> ours = new LinkedHashSet<>();
    for (String f : families) {
      if (f.startsWith("carillon_")
          && !(f.endsWith("_max") && families.contains(f.substring(0, f.length() - 4)))) {
        ours.add(f);
      }
    }
    assertThat(documented).as("documented metrics").containsAll(ours);
    assertThat(ours).as("metrics in the scrape").containsAll(documented);
  }

  @Test
  void one_retried_instance_shares_one_trace_from_tick_to_end_across_the_three_services() {
    awaitTheWork();
    long id = retriedSuccess();
    String traceId = new InstanceTraceIds(Tracing.DEFAULT_NAMESPACE).traceId(id);
    AttributeKey<String> serviceName = AttributeKey.stringKey("service.name");
    await("the second run's end span")
        .atMost(WAIT)
        .until(
            () ->
                spans.getFinishedSpanItems().stream()
                        .filter(s -> s.getTraceId().equals(traceId) && s.getName().equals("end"))
                        .count()
                    >= 2);
    List<SpanData> mine =
        spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
    Map<String, List<SpanData>> byName = new HashMap<>();
    mine.forEach(s -> byName.computeIfAbsent(s.getName(), k -> new ArrayList<>()).add(s));
    assertThat(byName.keySet())
        .contains("tick", "insert", "publish", "claim", "run", "end", "republish");
    assertThat(mine)
        .extracting(s -> s.getResource().getAttribute(serviceName))
        .contains("carillon-trigger", "carillon-worker", "carillon-retry");
    assertThat(byName.get("run")).hasSizeGreaterThanOrEqualTo(2);
    // The first run continues the trigger's publication, the retry continues the republication.
    SpanData tick = byName.get("tick").get(0);
    assertThat(tick.getResource().getAttribute(serviceName)).isEqualTo("carillon-trigger");
    assertThat(tick.getParentSpanContext().isValid()).isFalse();
    Set<String> publications = new LinkedHashSet<>();
    byName.get("publish").forEach(s -> publications.add(s.getSpanId()));
    byName.get("republish").forEach(s -> publications.add(s.getSpanId()));
    assertThat(byName.get("run"))
        .allSatisfy(r -> assertThat(publications).contains(r.getParentSpanId()));
    assertThat(byName.get("run"))
        .anySatisfy(
            r ->
                assertThat(byName.get("republish").stream().map(SpanData::getSpanId).toList())
                    .contains(r.getParentSpanId()));
    assertThat(byName.get("publish"))
        .allSatisfy(p -> assertThat(p.getParentSpanId()).isEqualTo(tick.getSpanId()));
  }

  @Test
  void an_exec_agent_gets_its_runs_traceparent_in_the_instances_trace() throws IOException {
    awaitTheWork();
    var done =
        db.dsl()
            .select(TASK_INSTANCE.ID, TASK_INSTANCE.WINDOW_KEY)
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq("obs-exec"))
            .and(TASK_INSTANCE.STATUS.eq(InstanceStatus.SUCCESS.name()))
            .orderBy(TASK_INSTANCE.ID)
            .limit(1)
            .fetchOne();
    long id = done.value1();
    String traceId = new InstanceTraceIds(Tracing.DEFAULT_NAMESPACE).traceId(id);
    String line =
        Files.readAllLines(execSeen).stream()
            .filter(l -> l.startsWith("obs-exec/" + done.value2() + " "))
            .findFirst()
            .orElseThrow(
                () -> new AssertionError("no line of " + done.value2() + " in " + execSeen));
    String traceparent = line.substring(line.indexOf(' ') + 1);
    await("the exec run's end span")
        .atMost(WAIT)
        .until(
            () ->
                spans.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getTraceId().equals(traceId) && s.getName().equals("end")));
    SpanData run =
        spans.getFinishedSpanItems().stream()
            .filter(s -> s.getTraceId().equals(traceId) && s.getName().equals("run"))
            .findFirst()
            .orElseThrow();
    // The process was handed its own run span's context, in the instance's trace.
    assertThat(traceparent).isEqualTo("00-" + traceId + "-" + run.getSpanId() + "-01");
    assertThat(
            spans.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(traceId))
                .map(SpanData::getName))
        .contains("tick", "insert", "publish", "claim", "run", "end");
  }
}
