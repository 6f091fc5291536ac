package dev.carillon.bench.exec;

import dev.carillon.model.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What {@code bench/run.sh exec} was asked for.
 *
 * @param runs how many exec runs are published at once, 1..{@value #MAX_RUNS}
 * @param sleep how long each run's {@code sleep} lasts, whole seconds, 1 s..1 h
 * @param heap each worker JVM's heap ({@code -Xms} = {@code -Xmx}), e.g. {@code 512m}
 * @param workers how many worker JVMs share the runs, 1..{@value #MAX_WORKERS}
 * @param java the {@code java} executable of the worker JVMs, or empty for the bench's own
 * @param virtualThreads whether the workers run their slots on virtual threads ({@code
 *     worker.virtual-threads=true})
 */
public record ExecOptions(
    int runs,
    Duration sleep,
    String heap,
    int workers,
    Optional<Path> java,
    boolean virtualThreads) {

  /** The most runs one invocation may publish. */
  public static final int MAX_RUNS = 10_000;

  /**
   * The most worker JVMs one invocation may start: each holds a pool of 8 connections, and the dev
   * stack's PostgreSQL allows 200.
   */
  public static final int MAX_WORKERS = 16;

  /** The largest {@code worker.concurrency} a worker accepts (WorkerSettings). */
  public static final int MAX_CONCURRENCY_PER_WORKER = 1024;

  static final String USAGE =
      "usage: bench/run.sh exec [--runs 200] [--sleep 30s] [--heap 512m] [--workers 1]"
          + " [--java PATH] [--virtual-threads]";

  private static final Pattern HEAP = Pattern.compile("[1-9][0-9]*[kKmMgG]?");

  public ExecOptions {
    if (runs < 1 || runs > MAX_RUNS) {
      throw new IllegalArgumentException("--runs must be 1.." + MAX_RUNS + ", was " + runs);
    }
    if (sleep.compareTo(Duration.ofSeconds(1)) < 0
        || sleep.compareTo(Duration.ofHours(1)) > 0
        || sleep.getNano() != 0) {
      throw new IllegalArgumentException(
          "--sleep must be whole seconds, 1s..1h, was " + Durations.format(sleep));
    }
    if (heap == null || !HEAP.matcher(heap).matches()) {
      throw new IllegalArgumentException(
          "--heap must be a JVM heap size such as 512m or 2g, was '" + heap + "'");
    }
    if (workers < 1 || workers > MAX_WORKERS) {
      throw new IllegalArgumentException(
          "--workers must be 1.." + MAX_WORKERS + ", was " + workers);
    }
    if (workers > runs) {
      throw new IllegalArgumentException(
          "--workers (" + workers + ") must not exceed --runs (" + runs + ")");
    }
    if (concurrencyPerWorker(runs, workers) > MAX_CONCURRENCY_PER_WORKER) {
      throw new IllegalArgumentException(
          "--runs "
              + runs
              + " on --workers "
              + workers
              + " gives each worker "
              + concurrencyPerWorker(runs, workers)
              + " runs at once, more than worker.concurrency's "
              + MAX_CONCURRENCY_PER_WORKER
              + "; use --workers "
              + minWorkers(runs)
              + " or more");
    }
    java = java.map(Path::normalize);
  }

  /** The defaults: 200 runs of 30 s on one worker of the bench's own Java, platform threads. */
  public static ExecOptions defaults() {
    return new ExecOptions(200, Duration.ofSeconds(30), "512m", 1, Optional.empty(), false);
  }

  /**
   * Reads {@code args}.
   *
   * @throws IllegalArgumentException naming the option and the value when one is unknown, missing
   *     its value or out of range
   */
  public static ExecOptions parse(String[] args) {
    ExecOptions d = defaults();
    int runs = d.runs();
    Duration sleep = d.sleep();
    String heap = d.heap();
    int workers = d.workers();
    Optional<Path> java = d.java();
    boolean virtual = d.virtualThreads();
    for (int i = 0; i < args.length; i++) {
      String name = args[i];
      if (name.equals("--virtual-threads")) {
        virtual = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option '" + name + "' needs a value");
      }
      String v = args[++i];
      switch (name) {
        case "--runs" -> runs = integer(name, v);
        case "--sleep" -> sleep = Durations.parse(name, v);
        case "--heap" -> heap = v;
        case "--workers" -> workers = integer(name, v);
        case "--java" -> {
          if (v.isBlank()) {
            throw new IllegalArgumentException("--java must name a java executable, was ''");
          }
          java = Optional.of(Path.of(v));
        }
        default -> throw new IllegalArgumentException("unknown option '" + name + "'");
      }
    }
    return new ExecOptions(runs, sleep, heap, workers, java, virtual);
  }

  /** Each worker's {@code worker.concurrency}: the runs split evenly, rounded up. */
  public int concurrencyPerWorker() {
    return concurrencyPerWorker(runs, workers);
  }

  /** The fewest workers that can hold {@code runs} at once. */
  static int minWorkers(int runs) {
    return (runs + MAX_CONCURRENCY_PER_WORKER - 1) / MAX_CONCURRENCY_PER_WORKER;
  }

  private static int concurrencyPerWorker(int runs, int workers) {
    return (runs + workers - 1) / workers;
  }

  /** The arguments that reproduce these options, every one spelled out. */
  public List<String> toArgs() {
    List<String> out = new ArrayList<>();
    out.add("--runs");
    out.add(Integer.toString(runs));
    out.add("--sleep");
    out.add(Durations.format(sleep));
    out.add("--heap");
    out.add(heap);
    out.add("--workers");
    out.add(Integer.toString(workers));
    java.ifPresent(
        j -> {
          out.add("--java");
          out.add(j.toString());
        });
    if (virtualThreads) {
      out.add("--virtual-threads");
    }
    return out;
  }

  /** The shell command that runs the bench with these options. */
  public String command() {
    return "bench/run.sh exec " + String.join(" ", toArgs());
  }

  private static int integer(String name, String v) {
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + v + "'");
    }
  }
}
