package dev.carillon.bench;

import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * What to run, from the command line.
 *
 * @param workloads {@code burst}, {@code steady} and {@code api} (steady with API clients listing
 *     instances; Carillon only), in the order given; {@code all} is burst and steady
 * @param systems system ids in run order
 * @param n burst size: instances due at once
 * @param rate steady fires per second
 * @param duration steady: how long fires keep coming
 * @param period steady: each task fires this often; {@code rate × period} tasks
 * @param repeats measured runs of each (workload, system)
 * @param threads worker threads of every system
 * @param pollInterval idle polling interval of polling schedulers (db-scheduler; Quartz's idle wait
 *     is at least 1 s)
 * @param grace steady: how long after the last planned fire a late fire still counts
 * @param lead steady: the plan starts this long after registration begins; empty = automatic
 * @param warmup run unmeasured bursts per system first (see {@code BenchRunner}), so the JIT is
 *     warm
 * @param out also write the report to this file; empty = stdout only
 * @param apiClients api: concurrent HTTP clients listing instances during the steady fires
 * @param durable run PostgreSQL with {@code synchronous_commit} and {@code full_page_writes} on, as
 *     production does, instead of the dev stack's off (see {@link Durability}); every system shares
 *     the one server, so every system runs with it
 * @param warmupN the size of each warm-up burst; 0 = {@code n}. The JIT compiles the same code
 *     whatever the burst's size, so a 100,000 or 1,000,000 burst can be measured warm after
 *     20,000-size warm-ups instead of a dozen full-size ones
 * @param points also append one line per measured run to this file, for {@code bench/run.sh plot}
 *     (see {@code PointsFile}); empty = none
 * @param statements load PostgreSQL's {@code pg_stat_statements} and print, per run, the statements
 *     that took the most of its time per instance (stderr); off by default, since it costs
 *     PostgreSQL a little on every statement
 * @param createAhead Carillon's {@code trigger.create-ahead} (0 = its default): ticks this long
 *     before each second create the windows due at it, published on the instant
 */
public record BenchOptions(
    List<String> workloads,
    List<String> systems,
    int n,
    int rate,
    Duration duration,
    Duration period,
    int repeats,
    int threads,
    Duration pollInterval,
    Duration grace,
    Optional<Duration> lead,
    boolean warmup,
    Optional<Path> out,
    int apiClients,
    boolean durable,
    int warmupN,
    Optional<Path> points,
    Duration createAhead,
    Duration claimAhead,
    boolean statements) {

  /** What {@code --workload all} runs. */
  public static final List<String> WORKLOADS = List.of("burst", "steady");

  /** Every workload {@code --workload} accepts. */
  public static final List<String> KNOWN_WORKLOADS = List.of("burst", "steady", "api");

  public static final int DEFAULT_API_CLIENTS = 50;
  public static final int DEFAULT_N = 20_000;
  public static final int DEFAULT_RATE = 500;
  public static final Duration DEFAULT_DURATION = Duration.ofSeconds(60);
  public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(10);
  public static final int DEFAULT_REPEATS = 3;
  // db-scheduler's and Quartz's own default worker count; the bench's "comparable thread count".
  public static final int DEFAULT_THREADS = 10;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
  public static final Duration DEFAULT_GRACE = Duration.ofSeconds(10);

  public BenchOptions {
    workloads = List.copyOf(workloads);
    systems = List.copyOf(systems);
    Objects.requireNonNull(lead, "lead");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(points, "points");
    if (createAhead.isNegative() || createAhead.compareTo(Duration.ofSeconds(1)) >= 0) {
      throw new IllegalArgumentException(
          "--create-ahead must be at least 0s and less than 1s (Carillon's tick), was "
              + Durations.format(createAhead));
    }
    if (claimAhead.isNegative() || claimAhead.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException(
          "--claim-ahead must be 0s..1s (worker.claim-ahead), was " + Durations.format(claimAhead));
    }
    for (String w : workloads) {
      if (!KNOWN_WORKLOADS.contains(w)) {
        throw new IllegalArgumentException(
            "--workload must be all or a comma list of burst, steady, api, was '" + w + "'");
      }
    }
    positive("--n", n);
    positive("--rate", rate);
    positive("--repeats", repeats);
    positive("--threads", threads);
    positive("--duration", duration.toMillis());
    positive("--poll-interval", pollInterval.toMillis());
    positive("--api-clients", apiClients);
    if (warmupN < 0) {
      throw new IllegalArgumentException("--warmup-n must be positive, was " + warmupN);
    }
    if (period.toMillis() < 1 || period.compareTo(duration) > 0) {
      throw new IllegalArgumentException(
          "--period must be between 1ms and --duration (" + duration + "), was " + period);
    }
    if ((rate * period.toMillis()) % 1000 != 0) {
      throw new IllegalArgumentException(
          "--rate × --period must be a whole number of tasks, was " + rate + " × " + period);
    }
  }

  /** The defaults with every workload and every known system. */
  public static BenchOptions defaults(List<String> allSystems) {
    return new BenchOptions(
        WORKLOADS,
        allSystems,
        DEFAULT_N,
        DEFAULT_RATE,
        DEFAULT_DURATION,
        DEFAULT_PERIOD,
        DEFAULT_REPEATS,
        DEFAULT_THREADS,
        DEFAULT_POLL_INTERVAL,
        DEFAULT_GRACE,
        Optional.empty(),
        true,
        Optional.empty(),
        DEFAULT_API_CLIENTS,
        false,
        0,
        Optional.empty(),
        Duration.ZERO,
        Duration.ZERO,
        false);
  }

  /** Connections per pool: one per worker plus two for the poller and housekeeping. */
  public int poolSize() {
    return threads + 2;
  }

  /** Tasks in the steady plan. */
  public long steadyTasks() {
    return rate * period.toMillis() / 1000;
  }

  /**
   * The automatic lead leaves 2 s plus 4 ms per task to register the tasks before they fire. Quartz
   * needed 12.2-14.8 s for 5,000 tasks in a run on 2026-11-30 (2 ms per task was too short twice).
   */
  public Duration effectiveLead() {
    return lead.orElse(Duration.ofSeconds(2).plusMillis(4 * steadyTasks()));
  }

  /**
   * Parses {@code args}; {@code --system all} expands to {@code allSystems}.
   *
   * @throws IllegalArgumentException naming the option and the value when one is wrong
   */
  public static BenchOptions parse(String[] args, List<String> allSystems) {
    BenchOptions d = defaults(allSystems);
    List<String> workloads = d.workloads;
    List<String> systems = d.systems;
    int n = d.n;
    int rate = d.rate;
    Duration duration = d.duration;
    Duration period = null;
    int repeats = d.repeats;
    int threads = d.threads;
    Duration poll = d.pollInterval;
    Duration grace = d.grace;
    Optional<Duration> lead = Optional.empty();
    boolean warmup = true;
    boolean durable = false;
    boolean statements = false;
    Optional<Path> out = Optional.empty();
    Optional<Path> points = Optional.empty();
    int warmupN = 0;
    Duration createAhead = Duration.ZERO;
    Duration claimAhead = Duration.ZERO;
    int apiClients = d.apiClients;
    List<String> tokens = new ArrayList<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (a.startsWith("--") && eq > 0) {
        tokens.add(a.substring(0, eq));
        tokens.add(a.substring(eq + 1));
      } else {
        tokens.add(a);
      }
    }
    for (int i = 0; i < tokens.size(); i++) {
      String opt = tokens.get(i);
      if (opt.equals("--no-warmup")) {
        warmup = false;
        continue;
      }
      if (opt.equals("--durable")) {
        durable = true;
        continue;
      }
      if (opt.equals("--statements")) {
        statements = true;
        continue;
      }
      if (i + 1 >= tokens.size()) {
        throw new IllegalArgumentException(opt + " needs a value");
      }
      String v = tokens.get(++i);
      switch (opt) {
        case "--workload" ->
            workloads =
                v.equals("all")
                    ? WORKLOADS
                    : Arrays.stream(v.split(",")).map(String::trim).distinct().toList();
        case "--system" -> systems = systems(v, allSystems);
        case "--n" -> n = integer(opt, v);
        case "--rate" -> rate = integer(opt, v);
        case "--duration" -> duration = duration(opt, v);
        case "--period" -> period = duration(opt, v);
        case "--repeats" -> repeats = integer(opt, v);
        case "--threads" -> threads = integer(opt, v);
        case "--poll-interval" -> poll = duration(opt, v);
        case "--grace" -> grace = duration(opt, v);
        case "--lead" -> lead = Optional.of(duration(opt, v));
        case "--out" -> out = Optional.of(Path.of(v));
        case "--points" -> points = Optional.of(Path.of(v));
        case "--warmup-n" -> {
          warmupN = integer(opt, v);
          positive(opt, warmupN);
        }
        case "--api-clients" -> apiClients = integer(opt, v);
        case "--create-ahead" -> createAhead = duration(opt, v);
        case "--claim-ahead" -> claimAhead = duration(opt, v);
        default -> throw new IllegalArgumentException("unknown option '" + opt + "'");
      }
    }
    if (period == null) {
      // Ten-second tasks unless the run is shorter than that.
      period = DEFAULT_PERIOD.compareTo(duration) <= 0 ? DEFAULT_PERIOD : duration;
    }
    return new BenchOptions(
        workloads,
        systems,
        n,
        rate,
        duration,
        period,
        repeats,
        threads,
        poll,
        grace,
        lead,
        warmup,
        out,
        apiClients,
        durable,
        warmupN,
        points,
        createAhead,
        claimAhead,
        statements);
  }

  /** The size of each warm-up burst. */
  public int warmupSize() {
    return warmupN == 0 ? n : warmupN;
  }

  /** The arguments that reproduce these options exactly (every default spelled out). */
  public List<String> toArgs() {
    List<String> a = new ArrayList<>();
    a.add("--workload");
    a.add(workloads.equals(WORKLOADS) ? "all" : String.join(",", workloads));
    a.add("--system");
    a.add(String.join(",", systems));
    a.addAll(List.of("--n", Integer.toString(n), "--rate", Integer.toString(rate)));
    a.addAll(List.of("--duration", Durations.format(duration)));
    a.addAll(List.of("--period", Durations.format(period)));
    a.addAll(List.of("--repeats", Integer.toString(repeats)));
    a.addAll(List.of("--threads", Integer.toString(threads)));
    a.addAll(List.of("--poll-interval", Durations.format(pollInterval)));
    a.addAll(List.of("--grace", Durations.format(grace)));
    lead.ifPresent(l -> a.addAll(List.of("--lead", Durations.format(l))));
    if (workloads.contains("api")) {
      a.addAll(List.of("--api-clients", Integer.toString(apiClients)));
    }
    if (!warmup) {
      a.add("--no-warmup");
    } else if (warmupN != 0 && warmupN != n) {
      a.addAll(List.of("--warmup-n", Integer.toString(warmupN)));
    }
    if (durable) {
      a.add("--durable");
    }
    if (statements) {
      a.add("--statements");
    }
    if (!createAhead.isZero()) {
      a.addAll(List.of("--create-ahead", Durations.format(createAhead)));
    }
    if (!claimAhead.isZero()) {
      a.addAll(List.of("--claim-ahead", Durations.format(claimAhead)));
    }
    return a;
  }

  private static List<String> systems(String v, List<String> all) {
    if (v.equals("all")) {
      return all;
    }
    Set<String> chosen = new LinkedHashSet<>();
    for (String s : v.split(",")) {
      String id = s.trim().toLowerCase(Locale.ROOT);
      if (!all.contains(id)) {
        throw new IllegalArgumentException(
            "--system must be all or a comma list of "
                + String.join(", ", all)
                + ", was '"
                + s
                + "'");
      }
      chosen.add(id);
    }
    return List.copyOf(chosen);
  }

  private static int integer(String opt, String v) {
    try {
      return Integer.parseInt(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(opt + " must be a whole number, was '" + v + "'", e);
    }
  }

  private static Duration duration(String opt, String v) {
    try {
      return Durations.parse(opt, v);
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException(
          opt + " must be a duration such as 500ms, 60s or 2m, was '" + v + "'", e);
    }
  }

  private static void positive(String opt, long v) {
    if (v < 1) {
      throw new IllegalArgumentException(opt + " must be positive, was " + v);
    }
  }
}
