package dev.carillon.worker.exec;

import dev.carillon.api.AgentContext;
import dev.carillon.model.agent.ExecCommand;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.RunSpec;
import dev.carillon.spec.AgentParams;
import dev.carillon.store.Outcome;
import dev.carillon.worker.DaemonThreads;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.AgentKind;
import dev.carillon.worker.run.RunRecords;
import io.micrometer.core.instrument.Counter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code exec} handler: runs each run's command ({@code params.exec}, see {@link AgentParams})
 * as an {@link ExecExecution}.
 *
 * <p>A command's environment is built, not inherited: the worker's own environment holds its
 * database password and other secrets, so the command gets only {@link #BASICS} (where the worker
 * has them), the task's {@code env}, the worker variables the task names in {@code passEnv}, and
 * the run's {@code CARILLON_*} context, in that order. Thread-safe.
 */
public final class ExecAgents implements AgentKind, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ExecAgents.class);

  /** The worker variables every command gets, when set: what programs expect to find. */
  public static final List<String> BASICS =
      List.of("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR");

  private final Map<String, String> workerEnv;
  private final Optional<Path> setsid;
  private final ExecLimits limits;
  private final int maxSummaryBytes;
  private final Counter ignoredLines;
  private final Counter abandonedTrees;
  private final ExecutorService io;

  /**
   * @param workerEnv the worker's environment ({@code System.getenv()} outside tests)
   * @param setsid the {@code setsid} program ({@link #findSetsid}), or empty to stop by descendants
   * @param limits the output bounds
   * @param maxSummaryBytes the most UTF-8 bytes of a summary kept
   * @param ignoredLines counts protocol lines ignored (unknown type or version, malformed, cut)
   * @param abandonedTrees counts process trees still there after SIGKILL
   * @param workerId names the reader threads
   */
  public ExecAgents(
      Map<String, String> workerEnv,
      Optional<Path> setsid,
      ExecLimits limits,
      int maxSummaryBytes,
      Counter ignoredLines,
      Counter abandonedTrees,
      String workerId) {
    this.workerEnv = Map.copyOf(workerEnv);
    this.setsid = setsid;
    this.limits = limits;
    this.maxSummaryBytes = maxSummaryBytes;
    this.ignoredLines = ignoredLines;
    this.abandonedTrees = abandonedTrees;
    // Three short-lived or blocked-in-read threads per running command (stdin, stdout, stderr), so
    // as many as the pool's concurrency allows; daemons, so that a reader held by a process that
    // escaped its tree does not keep the JVM alive.
    this.io = Executors.newCachedThreadPool(DaemonThreads.named("carillon-exec-io-" + workerId));
    if (setsid.isEmpty()) {
      log.info(
          "No setsid here: exec commands are stopped through their descendants only (a process"
              + " re-parented before the stop escapes)");
    }
  }

  /** The {@code setsid} program of this machine, if it has one and a {@code /proc}. */
  public static Optional<Path> findSetsid() {
    return ProcessTree.findSetsid();
  }

  @Override
  public AgentExecution execution(RunSpec spec, AgentContext context, RunRecords records) {
    ExecCommand command;
    try {
      command = AgentParams.exec(spec.taskId(), spec.paramsJson());
    } catch (InvalidTaskException e) {
      return AgentExecution.ending(
          Outcome.failure(
              "the task's exec settings are unusable: " + e.getMessage() + "; non-retryable",
              true));
    }
    return new ExecExecution(command, context, records, this);
  }

  /** The environment of {@code command}'s run (see the class comment). */
  Map<String, String> environment(ExecCommand command, AgentContext context) {
    Map<String, String> env = new HashMap<>();
    for (String name : BASICS) {
      String v = workerEnv.get(name);
      if (v != null) {
        env.put(name, v);
      }
    }
    env.putAll(command.env());
    for (String name : command.passEnv()) {
      String v = workerEnv.get(name);
      if (v != null) {
        env.put(name, v);
      } else {
        log.warn(
            "{}/{}: passEnv names {}, which is not set in the worker's environment",
            context.taskId(),
            context.windowKey(),
            name);
      }
    }
    env.putAll(RunContext.env(context));
    return env;
  }

  Optional<Path> setsid() {
    return setsid;
  }

  ExecLimits limits() {
    return limits;
  }

  int maxSummaryBytes() {
    return maxSummaryBytes;
  }

  ExecutorService io() {
    return io;
  }

  void ignoredLine() {
    ignoredLines.increment();
  }

  void abandoned() {
    abandonedTrees.increment();
  }

  /** Stops the reader threads' pool; readers still blocked are daemons. */
  @Override
  public void close() {
    io.shutdownNow();
  }
}
