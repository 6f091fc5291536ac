package dev.carillon.bench.exec;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstancePublisher;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.model.Durations;
import dev.carillon.model.instance.Instance;
import dev.carillon.model.instance.NewInstance;
import dev.carillon.model.instance.Origin;
import dev.carillon.model.schedule.Window;
import dev.carillon.spec.Format;
import dev.carillon.spec.SpecReader;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh exec [--runs 200] [--sleep 30s] [--heap 512m]}: {@code runs} exec runs of
 * {@code sleep} at once on one worker, started as its own JVM process ({@code WorkerMain}) against
 * a fresh dev stack. Prints, as Markdown: whether every run succeeded, how long the batch took, the
 * lease heartbeat statements and lease renewals per second while all runs were running (from the
 * worker's own counters), and the worker's memory (resident set, now and peak, from /proc) and
 * threads. Exit code 1 when a run did not succeed, 2 for bad arguments.
 */
public final class ExecSleepBench {
  private static final Pattern METRIC =
      Pattern.compile("^(carillon_worker_[a-z_]+)\\{[^}]*\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);

  private ExecSleepBench() {}

  /** One look at the worker. */
  record Sample(
      Instant at,
      double heartbeats,
      double renewals,
      double running,
      long rssKb,
      long peakRssKb,
      long threads,
      long children,
      int succeeded) {}

  public static void main(String[] args) throws Exception {
    int runs = 200;
    Duration sleep = Duration.ofSeconds(30);
    String heap = "512m";
    try {
      for (int i = 0; i < args.length; i += 2) {
        String v = i + 1 < args.length ? args[i + 1] : "";
        switch (args[i]) {
          case "--runs" -> runs = Integer.parseInt(v);
          case "--sleep" -> sleep = Durations.parse("--sleep", v);
          case "--heap" -> heap = v;
          default -> throw new IllegalArgumentException("unknown option '" + args[i] + "'");
        }
      }
      if (runs < 1 || runs > 1024) {
        throw new IllegalArgumentException("--runs must be 1..1024, was " + runs);
      }
    } catch (RuntimeException e) {
      System.err.println("bench exec: " + e.getMessage());
      System.err.println("usage: bench/run.sh exec [--runs 200] [--sleep 30s] [--heap 512m]");
      System.exit(2);
      return;
    }
    boolean ok;
    try (DevStack stack = DevStack.start(DevStackOptions.defaults())) {
      ok = run(stack, runs, sleep, heap);
    }
    System.exit(ok ? 0 : 1);
  }

  private static boolean run(DevStack stack, int runs, Duration sleep, String heap)
      throws Exception {
    String dbUrl = stack.createDatabase("exec_bench");
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String topic = "bench.exec." + unique;
    // Made up front, as the create-topics step does: services check their topics and create none.
    stack.createTopic(topic, dev.carillon.kafka.TopicAdmin.DEFAULT_INSTANCE_PARTITIONS);
    int adminPort;
    try (ServerSocket s = new ServerSocket(0)) {
      adminPort = s.getLocalPort();
    }
    try (Database db =
        Database.open(new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 2))) {
      new TaskStore(db.dsl())
          .applyAll(
              SpecReader.read(
                  "tasks:\n  - id: exec-sleep\n    handler: exec\n"
                      + "    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
                      + "    timeout: "
                      + Durations.format(sleep.multipliedBy(4).plusMinutes(1))
                      + "\n    params: { exec: { command: [sleep, \""
                      + sleep.toSeconds()
                      + "\"] } }\n",
                  Format.YAML,
                  "bench"));

      Map<String, String> env = new HashMap<>();
      env.put("PATH", System.getenv("PATH"));
      env.put(Config.envName("db.url"), dbUrl);
      env.put(Config.envName("db.user"), stack.dbUser());
      env.put(Config.envName("db.password"), stack.dbPassword());
      env.put(Config.envName("db.pool-size"), "8");
      env.put(Config.envName("kafka.bootstrap"), stack.kafkaBootstrap());
      env.put(Config.envName("admin.port"), Integer.toString(adminPort));
      env.put(Config.envName("instance.id"), "bench-exec");
      env.put(Config.envName("worker.concurrency"), Integer.toString(runs));
      env.put(Config.envName("worker.topic"), topic);
      env.put(Config.envName("worker.group"), "bench-exec-" + unique);
      Path log =
          Path.of(System.getProperty("java.io.tmpdir"), "exec-bench-worker-" + unique + ".log");
      ProcessBuilder pb =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-Xms" + heap,
              "-Xmx" + heap,
              "-cp",
              System.getProperty("java.class.path"),
              "dev.carillon.worker.WorkerMain");
      pb.environment().clear();
      pb.environment().putAll(env);
      pb.redirectErrorStream(true);
      pb.redirectOutput(log.toFile());
      Process worker = pb.start();
      try {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        awaitReady(http, adminPort, worker);
        System.err.printf("worker pid %d ready; log %s%n", worker.pid(), log);

        WindowStore windows = new WindowStore(db.dsl());
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        List<NewInstance> batch = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
          batch.add(
              NewInstance.pending(
                  "exec-sleep",
                  new Window("run-" + i, start, start.plusSeconds(3600)),
                  start,
                  Origin.MANUAL,
                  sleep.multipliedBy(4).plusMinutes(1),
                  0));
        }
        List<Instance> created = windows.create(batch, "bench");
        Instant published = Instant.now();
        try (InstancePublisher p =
            new InstancePublisher(
                KafkaSettings.of(stack.kafkaBootstrap()), topic, Duration.ofSeconds(30))) {
          p.publish(
              created.stream()
                  .map(i -> InstanceMessage.of(i.id(), i.taskId(), i.windowKey(), published))
                  .toList());
        }

        List<Sample> samples = new ArrayList<>();
        Instant giveUp = published.plus(sleep.multipliedBy(2)).plusSeconds(120);
        while (Instant.now().isBefore(giveUp)) {
          Sample s = sample(http, adminPort, worker, db, runs);
          samples.add(s);
          if (s.succeeded() + failedOrDead(db) >= runs) {
            break;
          }
          // The sampling period: the report's rates and memory are read once a second.
          Thread.sleep(1000);
        }
        System.out.println(report(runs, sleep, heap, published, samples, db));
        return samples.get(samples.size() - 1).succeeded() == runs;
      } finally {
        worker.destroy();
        if (!worker.waitFor(60, TimeUnit.SECONDS)) {
          worker.destroyForcibly();
        }
      }
    }
  }

  private static void awaitReady(HttpClient http, int port, Process worker) throws Exception {
    Instant end = Instant.now().plusSeconds(120);
    while (Instant.now().isBefore(end)) {
      if (!worker.isAlive()) {
        throw new IllegalStateException("the worker exited with " + worker.exitValue());
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/ready"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      // A child process has no readiness signal but its endpoint; polled until the deadline above.
      Thread.sleep(250);
    }
    throw new IllegalStateException("the worker did not become ready within 120 s");
  }

  private static Sample sample(HttpClient http, int port, Process worker, Database db, int runs)
      throws Exception {
    Map<String, Double> m = new HashMap<>();
    String text =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .timeout(Duration.ofSeconds(5))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher x = METRIC.matcher(text);
    while (x.find()) {
      m.merge(x.group(1), Double.parseDouble(x.group(2)), Double::sum);
    }
    Map<String, Long> status = procStatus(worker.pid());
    int succeeded =
        db.dsl()
            .fetchCount(
                TASK_INSTANCE,
                TASK_INSTANCE.TASK_ID.eq("exec-sleep").and(TASK_INSTANCE.STATUS.eq("SUCCESS")));
    return new Sample(
        Instant.now(),
        m.getOrDefault("carillon_worker_heartbeats_total", 0.0),
        m.getOrDefault("carillon_worker_leases_renewed_total", 0.0),
        m.getOrDefault("carillon_worker_running", 0.0),
        status.getOrDefault("VmRSS", -1L),
        status.getOrDefault("VmHWM", -1L),
        status.getOrDefault("Threads", -1L),
        worker.descendants().count(),
        succeeded);
  }

  private static int failedOrDead(Database db) {
    return db.dsl()
        .fetchCount(
            TASK_INSTANCE,
            TASK_INSTANCE
                .TASK_ID
                .eq("exec-sleep")
                .and(TASK_INSTANCE.STATUS.in("FAILED", "TIMEOUT", "DEAD")));
  }

  /** VmRSS and VmHWM (kB) and Threads of {@code pid}, from /proc; empty off Linux. */
  private static Map<String, Long> procStatus(long pid) {
    Map<String, Long> out = new HashMap<>();
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        String[] kv = line.split(":\\s+", 2);
        if (kv.length == 2 && List.of("VmRSS", "VmHWM", "Threads").contains(kv[0])) {
          out.put(kv[0], Long.parseLong(kv[1].replace(" kB", "").trim()));
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or the worker is gone.
    }
    return out;
  }

  private static String report(
      int runs, Duration sleep, String heap, Instant published, List<Sample> samples, Database db) {
    Sample last = samples.get(samples.size() - 1);
    // The steady part: every sample taken while all runs were running and none had ended.
    List<Sample> steady =
        samples.stream().filter(s -> s.running() >= runs && s.succeeded() == 0).toList();
    double beatsPerSecond = Double.NaN;
    double renewalsPerSecond = Double.NaN;
    if (steady.size() >= 2) {
      Sample a = steady.get(0);
      Sample b = steady.get(steady.size() - 1);
      double seconds = Duration.between(a.at(), b.at()).toMillis() / 1000.0;
      beatsPerSecond = (b.heartbeats() - a.heartbeats()) / seconds;
      renewalsPerSecond = (b.renewals() - a.renewals()) / seconds;
    }
    long maxChildren = samples.stream().mapToLong(Sample::children).max().orElse(0);
    long steadyRss = steady.stream().mapToLong(Sample::rssKb).max().orElse(-1);
    long maxThreads = samples.stream().mapToLong(Sample::threads).max().orElse(-1);
    StringBuilder sb = new StringBuilder();
    sb.append("### ")
        .append(runs)
        .append(" concurrent exec runs of `sleep ")
        .append(sleep.toSeconds())
        .append("` on one worker\n\n");
    sb.append("| measure | value |\n| --- | --- |\n");
    row(sb, "succeeded", last.succeeded() + " of " + runs + ", " + failedOrDead(db) + " failed");
    row(
        sb,
        "published to last success",
        String.format(
            Locale.ROOT, "%.1f s", Duration.between(published, last.at()).toMillis() / 1000.0));
    row(sb, "most child processes of the worker at once", Long.toString(maxChildren));
    row(
        sb,
        "lease heartbeat statements per second (all running)",
        String.format(Locale.ROOT, "%.2f", beatsPerSecond));
    row(
        sb,
        "lease renewals per second (all running)",
        String.format(Locale.ROOT, "%.1f", renewalsPerSecond));
    row(sb, "worker resident memory, all running (max)", steadyRss / 1024 + " MiB");
    row(sb, "worker resident memory, peak (VmHWM)", last.peakRssKb() / 1024 + " MiB");
    row(sb, "worker heap (-Xms = -Xmx)", heap);
    row(sb, "worker threads (max)", Long.toString(maxThreads));
    row(sb, "samples while all ran", Integer.toString(steady.size()));
    return sb.toString();
  }

  private static void row(StringBuilder sb, String k, String v) {
    sb.append("| ").append(k).append(" | ").append(v).append(" |\n");
  }
}
