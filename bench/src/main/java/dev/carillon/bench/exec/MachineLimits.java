package dev.carillon.bench.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The kernel limits that bound how many exec runs one machine can hold at once, and whether a run
 * of the bench fits under them. Each run is one {@code sleep} process plus the worker's platform
 * threads for it: the run's slot thread (unless virtual), the JDK's process reaper thread, and the
 * readers of the command's stdout and stderr (the stdin writer ends once the resume is written).
 * Every process and every thread takes a process id, so the pid space is shared by both.
 *
 * @param pidMax {@code /proc/sys/kernel/pid_max}
 * @param threadsMax {@code /proc/sys/kernel/threads-max}
 * @param maxProcesses the soft {@code RLIMIT_NPROC} ({@code ulimit -u}), counted per user over
 *     processes and threads
 * @param root whether the bench runs as uid 0, for which the kernel does not enforce {@code
 *     RLIMIT_NPROC}
 * @param maxOpenFiles the hard {@code RLIMIT_NOFILE}, which a JVM raises its soft limit to
 * @param maxMapCount {@code /proc/sys/vm/max_map_count}, per process
 * @param memAvailableKb {@code MemAvailable} of {@code /proc/meminfo}
 * @param tasksNow threads of every process on the machine now, with the dev stack's
 */
record MachineLimits(
    long pidMax,
    long threadsMax,
    long maxProcesses,
    boolean root,
    long maxOpenFiles,
    long maxMapCount,
    long memAvailableKb,
    long tasksNow) {

  /**
   * Threads and processes the dev stack adds (Kafka and ZooKeeper in the bench's JVM, PostgreSQL's
   * processes), counted before it starts so that a run that cannot fit fails before anything is
   * started.
   */
  static final int DEV_STACK_TASKS = 400;

  /** Platform threads a worker JVM has before it runs anything (measured: about 70). */
  static final int BASE_THREADS_PER_WORKER = 100;

  /** File descriptors a worker JVM has before it runs anything (jar, sockets, epoll). */
  static final int BASE_FILES_PER_WORKER = 500;

  /** The worker's end of the command's stdin, stdout and stderr pipes. */
  static final int FILES_PER_RUN = 3;

  /** Memory mappings per platform thread: its stack and its guard pages. */
  static final int MAPS_PER_THREAD = 2;

  /** Memory mappings of a worker JVM before it runs anything (measured: about 300). */
  static final int BASE_MAPS_PER_WORKER = 2_000;

  /** Memory of a worker JVM besides its heap (metaspace, code cache, GC, base thread stacks). */
  static final long NON_HEAP_KB_PER_WORKER = 256 * 1024;

  /** Memory per run: a {@code sleep} process's own pages, page tables and the threads' stacks. */
  static final long KB_PER_RUN = 1024;

  /** What a run of the bench needs. */
  record Demand(int runs, int workers, int runsPerWorker, boolean virtualThreads, long heapKb) {
    /** Platform threads of the worker per run. */
    int threadsPerRun() {
      return virtualThreads ? 3 : 4;
    }

    /** Processes and threads the run adds to the machine: the commands and the workers' threads. */
    long newTasks() {
      return (long) runs * (1 + threadsPerRun()) + (long) workers * BASE_THREADS_PER_WORKER;
    }

    long threadsPerWorker() {
      return (long) runsPerWorker * threadsPerRun() + BASE_THREADS_PER_WORKER;
    }
  }

  /**
   * One limit against what the run needs of it.
   *
   * @param limit what the machine allows; {@link Long#MAX_VALUE} for unlimited
   * @param need what the run would use at its peak, with what is in use already
   * @param enforced false where the kernel does not apply the limit to this user
   */
  record Check(String name, long limit, long need, boolean enforced) {
    boolean holds() {
      return !enforced || need <= limit;
    }

    String describe() {
      String l = limit == Long.MAX_VALUE ? "unlimited" : Long.toString(limit);
      return String.format(
          Locale.ROOT,
          "%s: limit %s, needs about %d%s",
          name,
          l,
          need,
          !enforced ? " (not enforced for root)" : holds() ? "" : " - TOO LOW");
    }
  }

  /**
   * Each limit against {@code d}: the pid space first, then threads, processes, files, maps,
   * memory.
   */
  List<Check> checks(Demand d) {
    long tasks = tasksNow + d.newTasks();
    List<Check> out = new ArrayList<>();
    out.add(new Check("kernel.pid_max (processes + threads on the machine)", pidMax, tasks, true));
    out.add(new Check("kernel.threads-max", threadsMax, tasks, true));
    out.add(new Check("ulimit -u (RLIMIT_NPROC, this user)", maxProcesses, tasks, !root));
    out.add(
        new Check(
            "ulimit -n (RLIMIT_NOFILE hard, per worker)",
            maxOpenFiles,
            (long) d.runsPerWorker() * FILES_PER_RUN + BASE_FILES_PER_WORKER,
            true));
    out.add(
        new Check(
            "vm.max_map_count (per worker)",
            maxMapCount,
            d.threadsPerWorker() * MAPS_PER_THREAD + BASE_MAPS_PER_WORKER,
            true));
    out.add(
        new Check(
            "MemAvailable (kB)",
            memAvailableKb,
            d.workers() * (d.heapKb() + NON_HEAP_KB_PER_WORKER) + d.runs() * KB_PER_RUN,
            true));
    return out;
  }

  /** This machine's limits now, with {@code tasksNow} counted by the caller. */
  static MachineLimits read(long tasksNow) throws IOException {
    String limits = proc("/proc/self/limits");
    return new MachineLimits(
        number(proc("/proc/sys/kernel/pid_max")),
        number(proc("/proc/sys/kernel/threads-max")),
        limit(limits, "Max processes", false),
        realUid(proc("/proc/self/status")) == 0,
        limit(limits, "Max open files", true),
        number(proc("/proc/sys/vm/max_map_count")),
        memAvailableKb(proc("/proc/meminfo")),
        tasksNow);
  }

  /**
   * A /proc file in one read. {@code Files.readString} sizes its first read by the file's size,
   * which /proc reports as 0, and a sysctl file read from an offset past 0 answers end of file: it
   * gave "3" for a pid_max of 32768.
   */
  static String proc(String path) throws IOException {
    try (InputStream in = Files.newInputStream(Path.of(path))) {
      return new String(in.readNBytes(1 << 20), StandardCharsets.US_ASCII);
    }
  }

  static long number(String text) {
    return Long.parseLong(text.trim());
  }

  /**
   * The soft or hard value of the {@code /proc/PID/limits} line starting with {@code name}; {@link
   * Long#MAX_VALUE} for {@code unlimited}.
   *
   * @throws IllegalArgumentException naming the limit when the text has no such line
   */
  static long limit(String procLimits, String name, boolean hard) {
    for (String line : procLimits.split("\n")) {
      if (line.startsWith(name + " ")) {
        String[] f = line.substring(name.length()).trim().split("\\s+");
        String v = hard ? f[1] : f[0];
        return v.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(v);
      }
    }
    throw new IllegalArgumentException("no '" + name + "' line in /proc/self/limits");
  }

  /** {@code MemAvailable} in kB from {@code /proc/meminfo}. */
  static long memAvailableKb(String meminfo) {
    return field(meminfo, "MemAvailable")
        .orElseThrow(() -> new IllegalArgumentException("no MemAvailable in /proc/meminfo"));
  }

  /** The real uid from {@code /proc/PID/status}. */
  static long realUid(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("Uid:")) {
        return Long.parseLong(line.substring(4).trim().split("\\s+")[0]);
      }
    }
    throw new IllegalArgumentException("no Uid line in /proc/self/status");
  }

  /**
   * The number of a {@code Key: value [kB]} line of {@code /proc/meminfo} or {@code
   * /proc/PID/status}, e.g. {@code VmRSS} in kB or {@code Threads}.
   */
  static OptionalLong field(String text, String key) {
    for (String line : text.split("\n")) {
      if (line.startsWith(key + ":")) {
        String v = line.substring(key.length() + 1).trim();
        if (v.endsWith(" kB")) {
          v = v.substring(0, v.length() - 3).trim();
        }
        try {
          return OptionalLong.of(Long.parseLong(v));
        } catch (NumberFormatException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }

  /**
   * A JVM heap size such as {@code 512m} in kB.
   *
   * @throws IllegalArgumentException naming the value when it is not one
   */
  static long heapKb(String heap) {
    char unit = Character.toLowerCase(heap.charAt(heap.length() - 1));
    String digits = Character.isDigit(unit) ? heap : heap.substring(0, heap.length() - 1);
    long n;
    try {
      n = Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a heap size: '" + heap + "'");
    }
    return switch (unit) {
      case 'k' -> n;
      case 'm' -> n * 1024;
      case 'g' -> n * 1024 * 1024;
      default -> Math.max(1, n / 1024);
    };
  }
}
