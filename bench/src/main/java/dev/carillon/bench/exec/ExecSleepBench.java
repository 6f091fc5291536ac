package dev.carillon.bench.exec;

import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;

import dev.carillon.bench.exec.ExecReport.Outcome;
import dev.carillon.bench.exec.ExecReport.Sample;
import dev.carillon.bench.exec.ExecReport.WorkerSample;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.kafka.InstanceMessage;
import dev.carillon.kafka.InstanceMessageCodec;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jooq.Record2;

/**
 * {@code bench/run.sh exec [--runs 200] [--sleep 30s] [--heap 512m] [--workers 1] [--java PATH]
 * [--virtual-threads]}: {@code runs} exec runs of {@code sleep} at once, shared by {@code workers}
 * worker JVMs ({@code WorkerMain}, one consumer group) against a fresh dev stack. Before starting
 * it checks that the machine's limits can hold the run (process ids, threads, open files, memory
 * mappings, memory; see {@link MachineLimits}) and fails with exit code 2 naming the limit that
 * cannot. Prints, as Markdown: the command that reproduces the run, whether every run succeeded,
 * the time from publishing to the last start and to the last success, the most child processes at
 * once, and, at the plateau (all runs running, none ended), the lease heartbeat statements and
 * renewals per second, PostgreSQL's CPU as a share of one core, and each worker's and all workers'
 * resident memory and threads before and at the plateau, with the memory and threads one run costs.
 * Exit code 1 when a run did not succeed, 2 for bad arguments or a machine that cannot hold the
 * run.
 */
public final class ExecSleepBench {
  private static final Pattern METRIC =
      Pattern.compile("^(carillon_worker_[a-z_]+)\\{[^}]*\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);

  /** The line {@code RunThreads} logs when the slots really are virtual threads. */
  private static final String VIRTUAL_THREADS_LINE = "Run slots use virtual threads";

  private static final String TASK = "exec-sleep";

  private ExecSleepBench() {}

  /** Why the bench will not start: bad arguments or a machine that cannot hold the run. */
  static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }

  public static void main(String[] args) throws Exception {
    ExecOptions options;
    try {
      options = ExecOptions.parse(args);
    } catch (RuntimeException e) {
      System.err.println("bench exec: " + e.getMessage());
      System.err.println(ExecOptions.USAGE);
      System.exit(2);
      return;
    }
    boolean ok;
    try {
      WorkerJava java = workerJava(options);
      System.err.printf(
          "bench exec: %s%nworker JVM: %s (%s), %s run threads%n",
          options.command(),
          java.executable(),
          java.versionLine(),
          options.virtualThreads() ? "virtual" : "platform");
      checkLimits(options);
      try (DevStack stack = DevStack.start(DevStackOptions.defaults())) {
        ok = run(stack, options, java);
      }
    } catch (Refused e) {
      System.err.println("bench exec: " + e.getMessage());
      System.exit(2);
      return;
    }
    System.exit(ok ? 0 : 1);
  }

  private static WorkerJava workerJava(ExecOptions options) throws Exception {
    Path executable =
        options.java().orElse(Path.of(System.getProperty("java.home"), "bin", "java"));
    WorkerJava java;
    try {
      java = WorkerJava.probe(executable);
    } catch (IllegalArgumentException e) {
      throw new Refused(e.getMessage());
    }
    if (java.feature() < WorkerJava.OLDEST_THAT_RUNS_THE_WORKER) {
      throw new Refused(
          "--java "
              + executable
              + " is Java "
              + java.feature()
              + "; the worker needs Java "
              + WorkerJava.OLDEST_THAT_RUNS_THE_WORKER
              + " or later");
    }
    if (options.virtualThreads() && !java.hasVirtualThreads()) {
      // The worker itself would warn and fall back to platform threads (RunThreads); a bench
      // asked to measure virtual threads must not report platform ones under that name.
      throw new Refused(
          "--virtual-threads: "
              + executable
              + " is Java "
              + java.feature()
              + ", which has no virtual threads (Java "
              + WorkerJava.FIRST_WITH_VIRTUAL_THREADS
              + " or later has them); pass --java with such a JDK, e.g."
              + " /usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
    }
    return java;
  }

  /** Compares the machine's limits with what the run needs, before anything is started. */
  private static void checkLimits(ExecOptions options) throws IOException {
    MachineLimits limits =
        MachineLimits.read(ProcTable.read().threads() + MachineLimits.DEV_STACK_TASKS);
    MachineLimits.Demand demand =
        new MachineLimits.Demand(
            options.runs(),
            options.workers(),
            options.concurrencyPerWorker(),
            options.virtualThreads(),
            MachineLimits.heapKb(options.heap()));
    System.err.printf(
        "machine limits (%d tasks running now, with an allowance for the dev stack; the run adds"
            + " about %d: %d per run, %d per worker):%n",
        limits.tasksNow(),
        demand.newTasks(),
        1 + demand.threadsPerRun(),
        MachineLimits.BASE_THREADS_PER_WORKER);
    List<String> failed = new ArrayList<>();
    for (MachineLimits.Check c : limits.checks(demand)) {
      System.err.println("  " + c.describe());
      if (!c.holds()) {
        failed.add(c.describe());
      }
    }
    if (!failed.isEmpty()) {
      throw new Refused(
          "this machine cannot hold "
              + options.runs()
              + " runs on "
              + options.workers()
              + " worker(s): "
              + String.join("; ", failed));
    }
  }

  private static boolean run(DevStack stack, ExecOptions options, WorkerJava java)
      throws Exception {
    String dbUrl = stack.createDatabase("exec_bench");
    String unique = UUID.randomUUID().toString().substring(0, 8);
    String topic = "bench.exec." + unique;
    String group = "bench-exec-" + unique;
    // Made up front, as the create-topics step does: services check their topics and create none.
    // At least one partition per worker, or a worker would sit idle.
    int partitions = Math.max(TopicAdmin.DEFAULT_INSTANCE_PARTITIONS, options.workers());
    stack.createTopic(topic, partitions);
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    Path logback = tmp.resolve("exec-bench-logback-" + unique + ".xml");
    Files.writeString(logback, WORKER_LOGBACK, StandardCharsets.UTF_8);
    long ticksPerSecond = clockTicksPerSecond();
    long postmaster = stack.postgres().postmasterPid();
    try (Database db =
        Database.open(new DbSettings(dbUrl, stack.dbUser(), stack.dbPassword(), 2))) {
      Duration timeout = options.sleep().multipliedBy(4).plusMinutes(1);
      new TaskStore(db.dsl())
          .applyAll(
              SpecReader.read(
                  "tasks:\n  - id: "
                      + TASK
                      + "\n    handler: exec\n"
                      + "    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
                      + "    timeout: "
                      + Durations.format(timeout)
                      + "\n    params: { exec: { command: [sleep, \""
                      + options.sleep().toSeconds()
                      + "\"] } }\n",
                  Format.YAML,
                  "bench"));

      List<Worker> workers = new CopyOnWriteArrayList<>();
      // Interrupted (Ctrl-C, timeout), the bench still stops its workers and their commands: the
      // finally below does not run when the JVM is asked to exit.
      Thread hook = new Thread(() -> stopWorkers(workers), "exec-bench-stop-workers");
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        for (int w = 0; w < options.workers(); w++) {
          workers.add(
              startWorker(stack, options, java, dbUrl, topic, group, unique, w, tmp, logback));
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (Worker w : workers) {
          awaitReady(http, w);
          if (options.virtualThreads()
              && !Files.readString(w.log()).contains(VIRTUAL_THREADS_LINE)) {
            throw new Refused(
                "worker "
                    + w.id()
                    + " was asked for virtual threads but did not log '"
                    + VIRTUAL_THREADS_LINE
                    + "'; see "
                    + w.log());
          }
          System.err.printf("worker %s pid %d ready; log %s%n", w.id(), w.process().pid(), w.log());
        }
        List<List<Integer>> assignment = awaitAssignment(stack, group, topic, partitions, workers);
        System.err.println("partitions per worker: " + assignment);
        List<WorkerSample> before = new ArrayList<>();
        ProcTable procs = ProcTable.read();
        for (Worker w : workers) {
          before.add(sampleWorker(http, w, procs));
        }

        String machine =
            Runtime.getRuntime().availableProcessors()
                + " cores, load average "
                + loadAverage()
                + ", "
                + ProcTable.read().threads()
                + " threads running";
        List<Instance> created = createInstances(db, options.runs(), timeout);
        List<Integer> plan = PartitionSpread.plan(options.runs(), assignment);
        List<Integer> shares = new ArrayList<>();
        for (int w = 0; w < workers.size(); w++) {
          shares.add(PartitionSpread.share(options.runs(), workers.size(), w));
        }
        Instant published = publish(stack, topic, created, plan);
        System.err.printf("published %d runs at %s%n", created.size(), published);

        List<Sample> samples = new ArrayList<>();
        Instant giveUp =
            published
                .plus(options.sleep().multipliedBy(2))
                .plusSeconds(120)
                .plusMillis(20L * options.runs());
        long tick = System.nanoTime();
        while (Instant.now().isBefore(giveUp)) {
          Sample s = sample(http, workers, db, postmaster);
          samples.add(s);
          if (s.succeeded() + s.ended() >= options.runs()) {
            break;
          }
          if (samples.size() % 10 == 0) {
            System.err.printf(
                "%s: %.0f running, %d children, %d succeeded, %d ended otherwise%n",
                s.at(), s.running(), s.descendants(), s.succeeded(), s.ended());
          }
          // The sampling period: the report's rates, CPU and memory are read once a second.
          tick += TimeUnit.SECONDS.toNanos(1);
          long wait = tick - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
        }
        Outcome outcome = outcome(db);
        System.out.println(
            ExecReport.markdown(
                options,
                machine,
                java,
                before,
                shares,
                published,
                samples,
                outcome,
                ticksPerSecond));
        return outcome.succeeded() == options.runs();
      } finally {
        stopWorkers(workers);
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // Already shutting down: the hook runs (and finds the workers gone).
        }
      }
    }
  }

  /**
   * Asks each worker to shut down (SIGTERM: it stops its runs and leaves the group), gives them
   * {@link #STOP_WAIT} together, then kills what is left of each, the commands under it included.
   */
  private static void stopWorkers(List<Worker> workers) {
    List<ProcessHandle> all = new ArrayList<>();
    for (Worker w : workers) {
      all.add(w.process().toHandle());
      w.process().descendants().forEach(all::add);
      w.process().destroy();
    }
    long deadline = System.nanoTime() + STOP_WAIT.toNanos();
    for (Worker w : workers) {
      try {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !w.process().waitFor(left, TimeUnit.NANOSECONDS)) {
          System.err.printf("worker %s did not stop within %s; killing it%n", w.id(), STOP_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    all.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
  }

  /** How long the workers get to shut down before they and their commands are killed. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(45);

  /** The worker JVMs log as the bench does, and say which threads their slots run on. */
  private static final String WORKER_LOGBACK =
      """
      <configuration>
        <appender name="STDERR" class="ch.qos.logback.core.ConsoleAppender">
          <target>System.err</target>
          <encoder>
            <pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern>
          </encoder>
        </appender>
        <logger name="dev.carillon" level="WARN"/>
        <logger name="dev.carillon.worker.run.RunThreads" level="INFO"/>
        <root level="WARN">
          <appender-ref ref="STDERR"/>
        </root>
      </configuration>
      """;

  /** One worker JVM. */
  private record Worker(String id, Process process, int adminPort, Path log) {}

  private static Worker startWorker(
      DevStack stack,
      ExecOptions options,
      WorkerJava java,
      String dbUrl,
      String topic,
      String group,
      String unique,
      int index,
      Path tmp,
      Path logback)
      throws IOException {
    int adminPort;
    try (ServerSocket s = new ServerSocket(0)) {
      adminPort = s.getLocalPort();
    }
    String id = "bench-exec-" + (index + 1);
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv("PATH"));
    env.put(Config.envName("db.url"), dbUrl);
    env.put(Config.envName("db.user"), stack.dbUser());
    env.put(Config.envName("db.password"), stack.dbPassword());
    env.put(Config.envName("db.pool-size"), "8");
    env.put(Config.envName("kafka.bootstrap"), stack.kafkaBootstrap());
    env.put(Config.envName("admin.port"), Integer.toString(adminPort));
    env.put(Config.envName("instance.id"), id);
    env.put(Config.envName("worker.concurrency"), Integer.toString(options.concurrencyPerWorker()));
    env.put(Config.envName("worker.topic"), topic);
    env.put(Config.envName("worker.group"), group);
    env.put(Config.envName("worker.virtual-threads"), Boolean.toString(options.virtualThreads()));
    Path log = tmp.resolve("exec-bench-" + unique + "-" + id + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
            java.executable().toString(),
            "-Xms" + options.heap(),
            "-Xmx" + options.heap(),
            // The whole heap resident from the start, so that what the runs add to the resident
            // set is their own cost (thread stacks, native buffers), not heap pages first touched.
            "-XX:+AlwaysPreTouch",
            "-Djava.io.tmpdir=" + tmp,
            "-Dlogback.configurationFile=" + logback,
            "-cp",
            System.getProperty("java.class.path"),
            "dev.carillon.worker.WorkerMain");
    pb.environment().clear();
    pb.environment().putAll(env);
    pb.redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    return new Worker(id, pb.start(), adminPort, log);
  }

  private static void awaitReady(HttpClient http, Worker w) throws Exception {
    Instant end = Instant.now().plusSeconds(180);
    while (Instant.now().isBefore(end)) {
      if (!w.process().isAlive()) {
        throw new IllegalStateException(
            "worker " + w.id() + " exited with " + w.process().exitValue() + "; see " + w.log());
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + w.adminPort() + "/health/ready"))
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
    throw new IllegalStateException("worker " + w.id() + " did not become ready within 180 s");
  }

  /**
   * Waits until the group has every worker as a member and every partition assigned, and returns
   * each worker's partitions (sorted), in worker order.
   */
  private static List<List<Integer>> awaitAssignment(
      DevStack stack, String group, String topic, int partitions, List<Worker> workers)
      throws Exception {
    Instant end = Instant.now().plusSeconds(120);
    String last = "no description yet";
    try (Admin admin = Admin.create(KafkaSettings.of(stack.kafkaBootstrap()).adminProps())) {
      while (Instant.now().isBefore(end)) {
        ConsumerGroupDescription d =
            admin
                .describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(10, TimeUnit.SECONDS);
        Map<String, List<Integer>> byId = new HashMap<>();
        for (MemberDescription m : d.members()) {
          List<Integer> own =
              m.assignment().topicPartitions().stream()
                  .filter(tp -> tp.topic().equals(topic))
                  .map(TopicPartition::partition)
                  .sorted()
                  .toList();
          m.groupInstanceId().ifPresent(id -> byId.put(id, own));
        }
        long assigned = byId.values().stream().mapToLong(List::size).sum();
        boolean everyWorker =
            workers.stream().allMatch(w -> !byId.getOrDefault(w.id(), List.of()).isEmpty());
        if (everyWorker && assigned == partitions && d.members().size() == workers.size()) {
          return workers.stream().map(w -> byId.get(w.id())).toList();
        }
        last = d.groupState() + ", " + d.members().size() + " member(s), " + byId;
        // Joining is the group coordinator's work; polled until the deadline above.
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException(
        "the workers' group did not assign all "
            + partitions
            + " partitions to the "
            + workers.size()
            + " workers within 120 s; last seen: "
            + last);
  }

  private static List<Instance> createInstances(Database db, int runs, Duration timeout) {
    WindowStore windows = new WindowStore(db.dsl());
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    List<Instance> created = new ArrayList<>(runs);
    List<NewInstance> batch = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      batch.add(
          NewInstance.pending(
              TASK,
              new Window("run-" + i, start, start.plusSeconds(3600)),
              start,
              Origin.MANUAL,
              timeout,
              0));
      if (batch.size() == 1000 || i == runs - 1) {
        created.addAll(windows.create(batch, "bench"));
        batch.clear();
      }
    }
    if (created.size() != runs) {
      throw new IllegalStateException("created " + created.size() + " of " + runs + " instances");
    }
    return created;
  }

  /** Sends run {@code i} to partition {@code plan.get(i)}; returns when Kafka acknowledged all. */
  private static Instant publish(
      DevStack stack, String topic, List<Instance> created, List<Integer> plan) throws Exception {
    Map<String, Object> props = KafkaSettings.of(stack.kafkaBootstrap()).producerProps();
    props.put("linger.ms", 5);
    props.put("delivery.timeout.ms", 60_000);
    props.put("max.block.ms", 60_000);
    Instant published = Instant.now();
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>(created.size());
      for (int i = 0; i < created.size(); i++) {
        Instance in = created.get(i);
        sent.add(
            producer.send(
                new ProducerRecord<>(
                    topic,
                    plan.get(i),
                    Long.toString(in.id()),
                    InstanceMessageCodec.encode(
                        InstanceMessage.of(in.id(), in.taskId(), in.windowKey(), published)))));
      }
      for (Future<RecordMetadata> f : sent) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw new IllegalStateException("Kafka refused a run's message: " + e.getCause(), e);
        }
      }
    }
    return published;
  }

  private static Sample sample(HttpClient http, List<Worker> workers, Database db, long postmaster)
      throws Exception {
    ProcTable procs = ProcTable.read();
    List<WorkerSample> ws = new ArrayList<>();
    for (Worker w : workers) {
      ws.add(sampleWorker(http, w, procs));
    }
    Map<String, Integer> status = new HashMap<>();
    for (Record2<String, Integer> r :
        db.dsl()
            .select(TASK_INSTANCE.STATUS, org.jooq.impl.DSL.count())
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq(TASK))
            .groupBy(TASK_INSTANCE.STATUS)
            .fetch()) {
      status.put(r.value1(), r.value2());
    }
    int ended =
        Stream.of("FAILED", "TIMEOUT", "DEAD").mapToInt(s -> status.getOrDefault(s, 0)).sum();
    return new Sample(
        Instant.now(),
        ws,
        procs.treeCpuTicks(postmaster),
        status.getOrDefault("SUCCESS", 0),
        ended);
  }

  private static WorkerSample sampleWorker(HttpClient http, Worker w, ProcTable procs)
      throws Exception {
    Map<String, Double> m = new HashMap<>();
    try {
      String text =
          http.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + w.adminPort() + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      Matcher x = METRIC.matcher(text);
      while (x.find()) {
        m.merge(x.group(1), Double.parseDouble(x.group(2)), Double::sum);
      }
    } catch (IOException e) {
      // A worker that died or hangs is part of the result: this sample counts none of its runs
      // as running (so it is not in the plateau) and the report shows what did not succeed.
      System.err.printf(
          "worker %s: no metrics (%s)%s%n",
          w.id(), e, w.process().isAlive() ? "" : ", exited with " + w.process().exitValue());
      m.put("carillon_worker_heartbeats_total", Double.NaN);
      m.put("carillon_worker_leases_renewed_total", Double.NaN);
    }
    long pid = w.process().pid();
    String status = readOrEmpty(Path.of("/proc", Long.toString(pid), "status"));
    long maps;
    try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "maps"))) {
      maps = lines.count();
    } catch (IOException | RuntimeException e) {
      maps = -1;
    }
    return new WorkerSample(
        m.getOrDefault("carillon_worker_heartbeats_total", 0.0),
        m.getOrDefault("carillon_worker_leases_renewed_total", 0.0),
        m.getOrDefault("carillon_worker_running", 0.0),
        orMinusOne(MachineLimits.field(status, "VmRSS")),
        orMinusOne(MachineLimits.field(status, "VmHWM")),
        orMinusOne(MachineLimits.field(status, "Threads")),
        maps,
        procs.descendants(pid));
  }

  private static Outcome outcome(Database db) {
    int succeeded =
        db.dsl()
            .fetchCount(
                TASK_INSTANCE,
                TASK_INSTANCE.TASK_ID.eq(TASK).and(TASK_INSTANCE.STATUS.eq("SUCCESS")));
    int failed =
        db.dsl()
            .fetchCount(
                TASK_INSTANCE,
                TASK_INSTANCE
                    .TASK_ID
                    .eq(TASK)
                    .and(TASK_INSTANCE.STATUS.in("FAILED", "TIMEOUT", "DEAD")));
    Record2<Instant, Instant> times =
        db.dsl()
            .select(
                org.jooq.impl.DSL.max(TASK_INSTANCE.STARTED_AT),
                org.jooq
                    .impl
                    .DSL
                    .max(TASK_INSTANCE.FINISHED_AT)
                    .filterWhere(TASK_INSTANCE.STATUS.eq("SUCCESS")))
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq(TASK))
            .fetchOne();
    return new Outcome(
        succeeded,
        failed,
        Optional.ofNullable(times.value1()),
        Optional.ofNullable(times.value2()));
  }

  /** {@code getconf CLK_TCK}: the unit of /proc's CPU times; 100 where it cannot be asked. */
  private static long clockTicksPerSecond() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return Long.parseLong(out);
      }
    } catch (IOException | NumberFormatException e) {
      // Fall through to Linux's usual value.
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    System.err.println("getconf CLK_TCK failed; taking 100 clock ticks per second");
    return 100;
  }

  /** The 1, 5 and 15 minute load averages from /proc/loadavg, or "unknown". */
  private static String loadAverage() {
    String[] f = readOrEmpty(Path.of("/proc/loadavg")).trim().split("\\s+");
    return f.length >= 3 ? f[0] + " " + f[1] + " " + f[2] : "unknown";
  }

  private static String readOrEmpty(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      return "";
    }
  }

  private static long orMinusOne(OptionalLong v) {
    return v.orElse(-1);
  }
}
