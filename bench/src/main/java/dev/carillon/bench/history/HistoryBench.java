package dev.carillon.bench.history;

import dev.carillon.bench.Percentiles;
import dev.carillon.bench.console.BenchApi;
import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.kafka.KafkaSettings;
import dev.carillon.kafka.TopicAdmin;
import dev.carillon.retry.RetryService;
import dev.carillon.retry.ScanReport;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh history [--days 30] [--per-day 1000000] [--tasks 10000] [--backlog 20000]
 * [--rounds 100]} (issue 24, item 3): a month of history at its full size on a fresh dev stack, and
 * what the parts that read or move it cost there.
 *
 * <ol>
 *   <li>Seeds {@code days × perDay} finished instances with their events into the live tables
 *       ({@link HistorySeed}), plus a {@code backlog} older than the retention, and vacuums and
 *       analyzes both tables as autovacuum would have.
 *   <li>Starts a real retry service on the database (retention: the seeded days and six hours) and
 *       times its passes while the archiver moves the backlog to the history tables: archived rows
 *       a second against the {@code perDay / 86,400} a second the month creates.
 *   <li>Times {@code rounds} more passes with nothing due: every scanner at that size.
 *   <li>Times the API reads behind {@code schedctl get instances}, {@code describe} and {@code why}
 *       and the console's lists, for live and for archived instances (p50, p95, max).
 *   <li>Prints the tables' and indexes' sizes after seeding, after the archive and after a vacuum.
 * </ol>
 *
 * <p>Markdown to stdout, progress to stderr; exit 2 for bad arguments.
 */
public final class HistoryBench {
  private static final Duration ARCHIVE_DEADLINE = Duration.ofMinutes(30);

  private final DevStack stack;
  private final HistoryOptions options;
  private final Database seeding;
  private final Database serving;
  private final String url;
  private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

  private HistoryBench(
      DevStack stack, HistoryOptions options, Database seeding, Database serving, String url) {
    this.stack = stack;
    this.url = url;
    this.options = options;
    this.seeding = seeding;
    this.serving = serving;
  }

  public static void main(String[] args) throws Exception {
    HistoryOptions options;
    try {
      options = HistoryOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    try (DevStack stack = DevStack.start(DevStackOptions.defaults())) {
      String url = stack.createDatabase("bench_history");
      DbSettings settings = new DbSettings(url, stack.dbUser(), stack.dbPassword(), 4);
      // Seeding writes a day per statement: far longer than any service statement may take.
      try (Database seeding =
              Database.open(
                  settings.withTimeouts(
                      Duration.ofSeconds(10), Duration.ofHours(3), Duration.ofHours(2)));
          Database serving = Database.open(settings)) {
        new HistoryBench(stack, options, seeding, serving, url).run();
      }
    }
  }

  private void run() throws Exception {
    HistorySeed seed = new HistorySeed(seeding.dsl(), options, now);
    long t0 = System.nanoTime();
    seed.tasks();
    progress("applied %,d tasks in %.1f s", options.tasks(), secondsSince(t0));
    long firstLive = Long.MAX_VALUE;
    long lastLive = 0;
    long seedStart = System.nanoTime();
    for (int d = 0; d < options.days(); d++) {
      long t = System.nanoTime();
      HistorySeed.IdRange r = seed.day(d);
      firstLive = Math.min(firstLive, r.first());
      lastLive = Math.max(lastLive, r.last());
      progress(
          "day %d of %d: %,d instances with their events in %.1f s",
          d + 1, options.days(), r.size(), secondsSince(t));
    }
    double daysSeconds = secondsSince(seedStart);
    seed.liveRows();
    HistorySeed.IdRange backlog = seed.backlog();
    long v = System.nanoTime();
    seeding.dsl().execute("vacuum analyze task_instance");
    seeding.dsl().execute("vacuum analyze instance_event");
    double vacuumSeconds = secondsSince(v);
    progress("vacuum analyze of both tables: %.1f s", vacuumSeconds);
    RelationSizes seeded = RelationSizes.read(seeding.dsl());
    long events = seeding.dsl().fetchCount(seeding.dsl().selectFrom("instance_event"));

    TopicAdmin.ensureTopics(KafkaSettings.of(stack.kafkaBootstrap()), 1, (short) 1);
    Archive archive;
    Timed passes;
    try (RetryService retry = RetryService.start(Config.of(retryConfig(seed)), Clock.systemUTC())) {
      awaitLeader(retry);
      archive = archive(retry, backlog.size());
      double[] rounds = new double[options.rounds()];
      double first = 0;
      for (int i = -options.warmup(); i < options.rounds(); i++) {
        long p = System.nanoTime();
        ScanReport report = retry.scanOnce();
        if (i == -options.warmup()) {
          first = millisSince(p);
        } else if (i >= 0) {
          rounds[i] = millisSince(p);
        }
        if (!report.complete()) {
          throw new IllegalStateException("a scan pass was incomplete: " + report);
        }
      }
      passes = new Timed(first, rounds);
    }
    RelationSizes archived = RelationSizes.read(seeding.dsl());
    Map<String, Timed> reads;
    BenchApi.WarmUp warmUp;
    try (BenchApi api = BenchApi.start(stack, serving)) {
      // As an operator who opens the console a little after the API started: the reads come
      // after the overview's warm-up, which counts the earlier hours of its default day.
      warmUp = api.awaitOverviewWarmUp();
      progress("overview warm-up: %d earlier hours in %.0f ms", warmUp.hours(), warmUp.millis());
      reads = reads(api, firstLive, lastLive, backlog);
    }
    long vv = System.nanoTime();
    seeding.dsl().execute("vacuum task_instance");
    seeding.dsl().execute("vacuum instance_event");
    double vacuumAfterSeconds = secondsSince(vv);
    RelationSizes vacuumed = RelationSizes.read(seeding.dsl());

    Report report =
        new Report(
            options, daysSeconds, vacuumSeconds, vacuumAfterSeconds, events, archive, warmUp);
    report.print(passes, reads, List.of(seeded, archived, vacuumed));
  }

  private Map<String, String> retryConfig(HistorySeed seed) {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("db.url", url);
    c.put("db.user", stack.dbUser());
    c.put("db.password", stack.dbPassword());
    c.put("kafka.bootstrap", stack.kafkaBootstrap());
    c.put("zk.connect", stack.zkConnect());
    c.put("kafka.instances-partitions", "1");
    c.put("admin.port", "0");
    c.put("instance.id", "retry-history-bench");
    // The bench drives the passes; the leader's own loop must not run between them.
    c.put("retry.scan-interval", "1h");
    c.put("retry.retention", seed.retention().toHours() + "h");
    return c;
  }

  private static void awaitLeader(RetryService retry) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!retry.isLeader()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the retry service did not lead within 60 s");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
    }
  }

  /**
   * Passes back to back until one archives nothing; each archives up to {@code retry.batch-size}
   * (500) instances with their events in one transaction.
   */
  private Archive archive(RetryService retry, long expected) {
    List<Double> passMillis = new ArrayList<>();
    long moved = 0;
    long deadline = System.nanoTime() + ARCHIVE_DEADLINE.toNanos();
    while (true) {
      long p = System.nanoTime();
      ScanReport r = retry.scanOnce();
      double ms = millisSince(p);
      if (r.archived() == 0) {
        break;
      }
      passMillis.add(ms);
      moved += r.archived();
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "the archive moved " + moved + " of " + expected + " in " + ARCHIVE_DEADLINE);
      }
    }
    if (moved != expected) {
      throw new IllegalStateException(
          "the archive moved " + moved + " instances, the backlog was " + expected);
    }
    progress("archived %,d instances in %d passes", moved, passMillis.size());
    return new Archive(moved, passMillis.stream().mapToDouble(Double::doubleValue).toArray());
  }

  /**
   * The archiver's work: {@code moved} instances in passes of these durations.
   *
   * @param passMillis each pass that moved a batch, in milliseconds
   */
  record Archive(long moved, double[] passMillis) {
    double rowsPerSecond() {
      double total = 0;
      for (double p : passMillis) {
        total += p;
      }
      return moved / (total / 1000);
    }
  }

  private Map<String, Timed> reads(
      BenchApi api, long firstLive, long lastLive, HistorySeed.IdRange archived) {
    SplittableRandom ids = new SplittableRandom(24);
    Random tasks = new Random(3);
    Map<String, Function<String, List<String>>> pages = new LinkedHashMap<>();
    String firstPage = "/instances?limit=50";
    pages.put("`get instances`: first page (50)", c -> List.of(firstPage));
    pages.put("`get instances`: the next page", c -> List.of(firstPage + "&cursor=" + c));
    pages.put(
        "a task's instances (50)", c -> List.of("/instances?task=" + task(tasks) + "&limit=50"));
    pages.put(
        "a task's DEAD instances",
        c -> List.of("/instances?task=" + task(tasks) + "&status=DEAD&limit=50"));
    pages.put("dead letters (200)", c -> List.of("/dead-letters?limit=200"));
    pages.put("overview", c -> List.of("/overview"));
    pages.put(
        "`describe` of a live instance", c -> describe(ids.nextLong(firstLive, lastLive + 1)));
    pages.put(
        "`why` of a live instance",
        c -> List.of("/instances/" + ids.nextLong(firstLive, lastLive + 1) + "/why"));
    pages.put(
        "`describe` of an archived instance",
        c -> describe(ids.nextLong(archived.first(), archived.last() + 1)));
    pages.put(
        "`why` of an archived instance",
        c -> List.of("/instances/" + ids.nextLong(archived.first(), archived.last() + 1) + "/why"));
    Pattern next = Pattern.compile("\"nextCursor\":\"([^\"]+)\"");
    Matcher m = next.matcher(api.get(firstPage));
    if (!m.find()) {
      throw new IllegalStateException("the first page of instances has no next cursor");
    }
    String cursor = m.group(1);
    Map<String, Timed> times = new LinkedHashMap<>();
    for (Map.Entry<String, Function<String, List<String>>> p : pages.entrySet()) {
      double[] t = new double[options.rounds()];
      double first = 0;
      for (int i = -options.warmup(); i < options.rounds(); i++) {
        long start = System.nanoTime();
        for (String path : p.getValue().apply(cursor)) {
          api.get(path);
        }
        if (i == -options.warmup()) {
          first = millisSince(start);
        } else if (i >= 0) {
          t[i] = millisSince(start);
        }
      }
      times.put(p.getKey(), new Timed(first, t));
      progress("%s: p95 %.1f ms", p.getKey(), Percentiles.of(t, 95));
    }
    return times;
  }

  /**
   * One read's times in milliseconds: its first call (cold: caches and the JIT empty) and the timed
   * rounds after the warm-up.
   */
  record Timed(double first, double[] rounds) {}

  private static List<String> describe(long id) {
    return List.of("/instances/" + id, "/instances/" + id + "/events");
  }

  private String task(Random random) {
    return HistorySeed.taskId(random.nextInt(options.tasks()));
  }

  private static double secondsSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e9;
  }

  private static double millisSince(long nanos) {
    return (System.nanoTime() - nanos) / 1e6;
  }

  static void progress(String format, Object... args) {
    System.err.printf(Locale.ROOT, format + "%n", args);
  }
}
