package dev.carillon.worker.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A started command and every process it starts, stopped as one: SIGTERM to all of them, then
 * SIGKILL to whatever is left after a grace.
 *
 * <p>Where {@code setsid} exists (Linux), the command is started through it, so it leads a new
 * session and process group whose id is its pid; a process of the group is found wherever it was
 * re-parented, by reading {@code /proc}. Everywhere, the command's descendants are collected each
 * time the tree is signalled or checked, while they are still its descendants (an orphan is
 * re-parented and no longer one). A process that leaves both (a daemon that starts its own session
 * while its parent is gone) escapes; agents must not daemonize.
 *
 * <p>Signals go through {@link ProcessHandle#destroy} and {@link ProcessHandle#destroyForcibly},
 * which check the process's start time, so a pid reused meanwhile is never signalled. A zombie (a
 * process that exited and was not reaped yet) counts as gone. Not thread-safe: one pool thread owns
 * a tree.
 */
final class ProcessTree {
  private static final Path PROC = Path.of("/proc");

  /** How often a stop checks whether the tree is gone. */
  private static final long POLL_MILLIS = 20;

  private final Process process;
  private final boolean ownGroup;
  private final Map<Long, ProcessHandle> known = new LinkedHashMap<>();

  private ProcessTree(Process process, boolean ownGroup) {
    this.process = process;
    this.ownGroup = ownGroup;
  }

  /** The {@code setsid} program, when this machine has one and a {@code /proc} to find groups. */
  static Optional<Path> findSetsid() {
    if (!Files.isDirectory(PROC.resolve("self"))) {
      return Optional.empty();
    }
    for (String p : List.of("/usr/bin/setsid", "/bin/setsid", "/usr/sbin/setsid")) {
      Path path = Path.of(p);
      if (Files.isExecutable(path)) {
        return Optional.of(path);
      }
    }
    return Optional.empty();
  }

  /**
   * Starts {@code builder}'s command, through {@code setsid} when given.
   *
   * @throws IOException when the command cannot start (no such program, no such directory)
   */
  static ProcessTree start(ProcessBuilder builder, Optional<Path> setsid) throws IOException {
    if (setsid.isPresent()) {
      List<String> argv = new ArrayList<>();
      argv.add(setsid.get().toString());
      argv.addAll(builder.command());
      builder.command(argv);
    }
    return new ProcessTree(builder.start(), setsid.isPresent());
  }

  /** The started process. */
  Process process() {
    return process;
  }

  /** The command's pid (with setsid, also its session and process group id). */
  long pid() {
    return process.pid();
  }

  /**
   * Stops the tree: SIGTERM to every process of it, SIGKILL after {@code grace} to what is left,
   * then waits up to {@code killWait} for that to go.
   *
   * @return whether the tree is gone
   */
  boolean terminate(Duration grace, Duration killWait) throws InterruptedException {
    signal(false);
    if (awaitGone(grace)) {
      return true;
    }
    signal(true);
    return awaitGone(killWait);
  }

  /** Whether no process of the tree is left (zombies aside). */
  boolean gone() {
    collect();
    if (process.isAlive()) {
      return false;
    }
    known.values().removeIf(h -> !h.isAlive() || zombie(h.pid()));
    return known.isEmpty();
  }

  /** How many processes of the tree are still there, the command included; for the log. */
  int remaining() {
    gone();
    return known.size() + (process.isAlive() ? 1 : 0);
  }

  private boolean awaitGone(Duration timeout) throws InterruptedException {
    long end = System.nanoTime() + timeout.toNanos();
    while (!gone()) {
      long left = end - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      // Wakes at once when the command itself exits; its children are polled.
      process.waitFor(
          Math.min(POLL_MILLIS, TimeUnit.NANOSECONDS.toMillis(left) + 1), TimeUnit.MILLISECONDS);
    }
    return true;
  }

  private void signal(boolean kill) {
    collect();
    if (kill) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    for (ProcessHandle h : known.values()) {
      if (kill) {
        h.destroyForcibly();
      } else {
        h.destroy();
      }
    }
  }

  /** Adds the processes of the tree found now: descendants, and members of the command's group. */
  private void collect() {
    process.descendants().forEach(h -> known.putIfAbsent(h.pid(), h));
    if (ownGroup) {
      for (long pid : groupMembers(process.pid())) {
        if (pid != process.pid()) {
          ProcessHandle.of(pid).ifPresent(h -> known.putIfAbsent(pid, h));
        }
      }
    }
  }

  /** The pids of the processes of group {@code pgid}, zombies left out; read from /proc. */
  static List<Long> groupMembers(long pgid) {
    List<Long> members = new ArrayList<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(PROC)) {
      for (Path p : dir) {
        String name = p.getFileName().toString();
        if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
          continue;
        }
        Optional<Stat> stat = stat(p);
        if (stat.isPresent() && stat.get().pgrp() == pgid && stat.get().state() != 'Z') {
          members.add(Long.parseLong(name));
        }
      }
    } catch (IOException e) {
      // /proc cannot be listed: only descendants are known, which is what other systems get.
      return members;
    }
    return members;
  }

  private static boolean zombie(long pid) {
    return stat(PROC.resolve(Long.toString(pid))).map(s -> s.state() == 'Z').orElse(false);
  }

  /** The fields of /proc/PID/stat this class reads. */
  private record Stat(char state, long pgrp) {}

  private static Optional<Stat> stat(Path procDir) {
    try {
      String s = Files.readString(procDir.resolve("stat"), StandardCharsets.UTF_8);
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the
      // last ')'.
      int close = s.lastIndexOf(')');
      String[] f = s.substring(close + 2).split(" ", 4);
      return Optional.of(new Stat(f[0].charAt(0), Long.parseLong(f[2])));
    } catch (IOException | RuntimeException e) {
      // Gone meanwhile, or not readable.
      return Optional.empty();
    }
  }
}
