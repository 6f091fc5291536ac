package dev.carillon.devstack;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a PostgreSQL server that a dead stack left running on its data directory.
 *
 * <p>{@code pg_ctl start} runs the postmaster in a session of its own, so it outlives the JVM that
 * started it: a stack killed with -9 (or crashed) leaves it running, holding the data directory and
 * the old port. PostgreSQL refuses a second postmaster on the same data, so the next start would
 * wait in vain and give up. {@link #stopIfRunning} is called only while the stack holds its {@link
 * StackDirectory} lock, which proves that no live stack owns the server; it asks for a fast
 * shutdown (SIGINT: open sessions are ended, the data is checkpointed) and kills the server and its
 * backends only if that does not finish in time.
 */
final class OrphanPostmaster {
  private static final Logger log = LoggerFactory.getLogger(OrphanPostmaster.class);
  static final String PID_FILE = "postmaster.pid";

  private OrphanPostmaster() {}

  /**
   * Stops the postmaster named in {@code pgData}'s {@value #PID_FILE} if it is still running.
   *
   * @param shutdownGrace how long a fast shutdown may take before the server is killed
   * @return the process id of the server that was stopped, if there was one
   * @throws DevStackException when the file names a live process that cannot be identified, or the
   *     server does not go away
   */
  static Optional<Long> stopIfRunning(Path pgData, Duration shutdownGrace) {
    Path pidFile = pgData.resolve(PID_FILE);
    List<String> lines;
    try {
      if (!Files.exists(pidFile)) {
        return Optional.empty();
      }
      lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new DevStackException("cannot read " + pidFile + ": " + e, e);
    }
    long pid;
    try {
      pid = Long.parseLong(lines.isEmpty() ? "" : lines.get(0).strip());
    } catch (NumberFormatException e) {
      // PostgreSQL reports a damaged lock file itself, with a better message than ours.
      log.warn("{} does not start with a process id; leaving it to PostgreSQL", pidFile);
      return Optional.empty();
    }
    Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    if (process.isEmpty()) {
      log.info(
          "{} names process {}, which is gone; PostgreSQL recovers from that by itself",
          pidFile,
          pid);
      return Optional.empty();
    }
    ProcessHandle postmaster = process.get();
    String port = lines.size() > 3 ? lines.get(3).strip() : "?";
    // The second line is the data directory as the postmaster was given it.
    String recordedDir = lines.size() > 1 ? lines.get(1).strip() : "";
    switch (identify(postmaster, pgData, recordedDir)) {
      case OTHER -> {
        // The id was reused by an unrelated process: the file is stale, and PostgreSQL would
        // refuse to start while its process id is alive.
        log.warn(
            "{} names process {} ({}), which is not a PostgreSQL server; removing the stale file",
            pidFile,
            pid,
            postmaster.info().command().orElse("?"));
        try {
          Files.deleteIfExists(pidFile);
        } catch (IOException e) {
          throw new DevStackException("cannot remove stale " + pidFile + ": " + e, e);
        }
        return Optional.empty();
      }
      case UNKNOWN ->
          throw new DevStackException(
              pidFile
                  + " names live process "
                  + pid
                  + " ("
                  + postmaster.info().commandLine().orElse("command unknown")
                  + "), which devstack cannot identify as this directory's PostgreSQL server;"
                  + " stop that process, or remove the file if it is not PostgreSQL");
      case POSTMASTER -> {
        log.warn(
            "PostgreSQL (pid {}, port {}) is still running on {}, left by a stack that did not"
                + " stop it (killed or crashed); stopping it",
            pid,
            port,
            pgData);
        stop(postmaster, shutdownGrace, pidFile);
        return Optional.of(pid);
      }
    }
    throw new AssertionError("unreachable");
  }

  private enum Identity {
    POSTMASTER,
    OTHER,
    UNKNOWN
  }

  private static Identity identify(ProcessHandle process, Path pgData, String recordedDir) {
    ProcessHandle.Info info = process.info();
    Optional<String> command = info.command();
    if (command.isEmpty()) {
      return Identity.UNKNOWN;
    }
    String executable = Path.of(command.get()).getFileName().toString();
    if (!executable.equals("postgres")) {
      return Identity.OTHER;
    }
    // A PostgreSQL server of another data directory (its process id reused) is not ours to stop,
    // and its lock file is not ours to remove: leave that to a person. The arguments are not
    // always visible; the executable's name then decides.
    Optional<String[]> args = info.arguments();
    if (args.isEmpty()) {
      return Identity.POSTMASTER;
    }
    List<String> given = List.of(args.get());
    return given.contains(pgData.toString()) || given.contains(recordedDir)
        ? Identity.POSTMASTER
        : Identity.UNKNOWN;
  }

  private static void stop(ProcessHandle postmaster, Duration grace, Path pidFile) {
    long t0 = System.nanoTime();
    if (!signal("INT", postmaster.pid())) {
      // No kill(1) to send SIGINT with: SIGTERM is PostgreSQL's "smart" shutdown, which waits for
      // sessions to end; the grace period below bounds it.
      postmaster.destroy();
    }
    if (awaitExit(postmaster, grace)) {
      log.info(
          "stopped the orphaned PostgreSQL (pid {}) in {} ms",
          postmaster.pid(),
          Duration.ofNanos(System.nanoTime() - t0).toMillis());
      return;
    }
    log.warn(
        "the orphaned PostgreSQL (pid {}) did not shut down within {} s; killing it and its"
            + " backends (it will recover from its WAL on start)",
        postmaster.pid(),
        grace.toSeconds());
    // Backends first: a killed postmaster's children keep its shared memory attached, and
    // PostgreSQL will not start while they hold it.
    postmaster.descendants().forEach(ProcessHandle::destroyForcibly);
    postmaster.destroyForcibly();
    if (!awaitExit(postmaster, Duration.ofSeconds(10))) {
      throw new DevStackException(
          "the orphaned PostgreSQL (pid "
              + postmaster.pid()
              + ") named in "
              + pidFile
              + " does not go away; stop it by hand");
    }
  }

  private static boolean signal(String signal, long pid) {
    return Signals.send(signal, List.of(pid));
  }

  private static boolean awaitExit(ProcessHandle process, Duration timeout) {
    return Signals.awaitExit(process, timeout);
  }
}
