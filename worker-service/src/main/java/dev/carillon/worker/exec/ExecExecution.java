package dev.carillon.worker.exec;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.RunCancelledException;
import dev.carillon.model.agent.ExecCommand;
import dev.carillon.store.Outcome;
import dev.carillon.worker.run.AgentExecution;
import dev.carillon.worker.run.Outcomes;
import dev.carillon.worker.run.RunRecords;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Map.Entry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of an {@code exec} agent: a process tree of its own ({@link ProcessTree}), the run's
 * context on its stdin and in its environment ({@link RunContext}), with what earlier attempts left
 * also in a file named by {@code CARILLON_RESUME_FILE}, its stdout read for protocol lines ({@link
 * Protocol}: progress, checkpoints and effects go to the run's records as they come, in order), the
 * end of its stderr kept for the failure reason, and its exit code turned into the outcome ({@link
 * ExitCodes}).
 *
 * <p>{@link #stop} only wakes the pool thread in {@link #execute}, which then sends SIGTERM to the
 * whole tree and SIGKILL after the task's grace; {@link #execute} returns only once the tree is
 * gone (or, after SIGKILL, the limit's wait has passed, which is logged), so the run's slot is
 * given back only then. A command that exits leaving processes behind gets the same treatment.
 *
 * <p>What is logged of the command is its program and the number of arguments: values that are
 * secret belong in the worker's environment, passed by name ({@code passEnv}), and never appear in
 * a log line or the task.
 */
final class ExecExecution implements AgentExecution {
  private static final Logger log = LoggerFactory.getLogger(ExecExecution.class);

  /** How long the output readers may take to finish after the tree is gone. */
  private static final long READER_WAIT_MILLIS = 2000;

  /** The longest stderr tail in a failure reason, in characters (the reason holds 512). */
  private static final int REASON_TAIL_CHARS = 400;

  private final ExecCommand command;
  private final AgentContext context;
  private final RunRecords records;
  private final ExecAgents agents;
  private final CompletableFuture<Void> stopped = new CompletableFuture<>();
  private final AtomicReference<ProtocolLine.Result> result = new AtomicReference<>();
  private final Map<String, Integer> ignored = new LinkedHashMap<>();

  ExecExecution(ExecCommand command, AgentContext context, RunRecords records, ExecAgents agents) {
    this.command = command;
    this.context = context;
    this.records = records;
    this.agents = agents;
  }

  @Override
  public void stop() {
    stopped.complete(null);
  }

  @Override
  public boolean endsWhenStopped() {
    return true;
  }

  @Override
  public Duration stopAllowance() {
    // SIGTERM, the task's grace, SIGKILL, then the wait for the tree and for the output readers.
    return command
        .grace()
        .plus(agents.limits().killWait())
        .plus(Duration.ofMillis(READER_WAIT_MILLIS));
  }

  @Override
  public Outcome execute() {
    if (stopped.isDone()) {
      return Outcome.failure("stopped before the command started", false);
    }
    ObjectNode resume;
    Path resumeFile;
    try {
      resume = RunContext.resume(context, records);
      resumeFile = ResumeFile.write(resume);
    } catch (UncheckedIOException | IOException e) {
      return Outcome.failure(
          "cannot read or hand over the run's checkpoints and effects: "
              + e.getMessage()
              + "; retryable",
          false);
    }
    try {
      return run(resume, resumeFile);
    } finally {
      ResumeFile.delete(resumeFile);
    }
  }

  private Outcome run(ObjectNode resume, Path resumeFile) {
    ProcessBuilder builder = new ProcessBuilder(command.argv());
    command.dir().ifPresent(d -> builder.directory(new File(d)));
    builder.environment().clear();
    builder.environment().putAll(agents.environment(command, context));
    builder.environment().put(ResumeFile.ENV, resumeFile.toString());
    ProcessTree tree;
    try {
      // Through setsid, a program that cannot be found would show as setsid's own failure.
      Programs.check(command.argv().get(0), command.dir(), builder.environment().get("PATH"));
      tree = ProcessTree.start(builder, agents.setsid());
    } catch (IOException | RuntimeException e) {
      return Outcome.failure(
          "cannot start "
              + command.argv().get(0)
              + command.dir().map(d -> " in " + d).orElse("")
              + ": "
              + e.getMessage()
              + "; retryable, since another worker may have the program",
          false);
    }
    log.debug(
        "{}/{} started {} with {} argument(s) as pid {}",
        context.taskId(),
        context.windowKey(),
        command.argv().get(0),
        command.argv().size() - 1,
        tree.pid());
    ExecutorService io = agents.io();
    Future<?> stdin = io.submit(() -> writeStdin(tree.process().getOutputStream(), resume));
    Future<Streams.LinesRead> stdout =
        io.submit(
            () ->
                Streams.lines(
                    tree.process().getInputStream(),
                    agents.limits().maxLineBytes(),
                    agents.limits().maxStdoutBytes(),
                    this::line));
    Future<String> stderr =
        io.submit(
            () -> Streams.tail(tree.process().getErrorStream(), agents.limits().stderrTailBytes()));
    boolean stoppedFirst = awaitExitOrStop(tree);
    try {
      if (!tree.gone()) {
        if (!stoppedFirst) {
          log.warn(
              "{}/{} exited and left {} process(es) of its tree running; stopping them",
              context.taskId(),
              context.windowKey(),
              tree.remaining());
        }
        if (!tree.terminate(command.grace(), agents.limits().killWait())) {
          agents.abandoned();
          log.error(
              "{}/{}: {} process(es) of the tree of pid {} still exist {} after SIGKILL; giving up on"
                  + " them (a process in uninterruptible IO, or unreaped zombies: run the worker"
                  + " under an init such as tini)",
              context.taskId(),
              context.windowKey(),
              tree.remaining(),
              tree.pid(),
              agents.limits().killWait());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tree.process().destroyForcibly();
    }
    stdin.cancel(true);
    Streams.LinesRead read = await(stdout, null);
    String errTail = await(stderr, "");
    logIgnored(read);
    if (stoppedFirst) {
      return Outcome.failure("stopped", false);
    }
    return outcome(tree.process().exitValue(), errTail);
  }

  /** Waits for the command to exit or for a stop; whether the stop came first. */
  private boolean awaitExitOrStop(ProcessTree tree) {
    try {
      CompletableFuture.anyOf(tree.process().onExit(), stopped).get();
    } catch (InterruptedException e) {
      // Nobody interrupts a pool thread running a process; if it happens, stop the tree.
      Thread.currentThread().interrupt();
      stopped.complete(null);
    } catch (ExecutionException e) {
      stopped.complete(null);
    }
    // A stop that comes just after the exit still counts as a stop: the run has moved on, and what
    // the command produced is discarded either way.
    return stopped.isDone();
  }

  private Outcome outcome(int exit, String errTail) {
    ExitCodes kind = ExitCodes.of(exit);
    if (kind == ExitCodes.SUCCESS) {
      ProtocolLine.Result r = result.get();
      if (r == null) {
        return Outcomes.success(AgentResult.of(""), agents.maxSummaryBytes());
      }
      try {
        URI uri = r.uri() == null ? null : new URI(r.uri());
        return Outcomes.success(new AgentResult(r.summary(), uri), agents.maxSummaryBytes());
      } catch (Exception e) {
        return Outcome.failure(
            "exit 0, but the result's uri is not an absolute URI: " + e.getMessage(), false);
      }
    }
    String tail = reasonTail(errTail);
    return Outcome.failure(
        ExitCodes.describe(exit) + (tail.isEmpty() ? "" : ": " + tail),
        kind == ExitCodes.NON_RETRYABLE);
  }

  /** The last lines of stderr on one line, at most {@value #REASON_TAIL_CHARS} characters. */
  static String reasonTail(String errTail) {
    String oneLine =
        String.join(
            " | ", errTail.strip().lines().map(String::strip).filter(l -> !l.isEmpty()).toList());
    return oneLine.length() <= REASON_TAIL_CHARS
        ? oneLine
        : "..." + oneLine.substring(oneLine.length() - REASON_TAIL_CHARS + 3);
  }

  private void line(String text, boolean cut) {
    ProtocolLine line = Protocol.parse(text);
    if (line instanceof ProtocolLine.Plain) {
      return;
    }
    if (cut) {
      count("cut at " + agents.limits().maxLineBytes() + " bytes");
      return;
    }
    if (line instanceof ProtocolLine.Progress p) {
      context.heartbeat(p.message());
    } else if (line instanceof ProtocolLine.Result r) {
      result.set(r);
    } else if (line instanceof ProtocolLine.Checkpoint c) {
      record("checkpoint", () -> records.checkpoint(c.stateJson()));
    } else if (line instanceof ProtocolLine.Effect e) {
      record(
          "effect '" + e.key() + "'",
          () -> {
            if (e.start()) {
              records.effectStarted(e.key());
            } else {
              records.effectDone(e.key(), e.result());
            }
          });
    } else if (line instanceof ProtocolLine.Unknown u) {
      count("unknown type '" + u.what() + "'");
    } else if (line instanceof ProtocolLine.Malformed m) {
      count("malformed: " + m.problem());
    }
  }

  /**
   * Hands a checkpoint or an effect to the run's records, on the reader thread, so that they are
   * stored in the order the agent wrote them. A refused write has already stopped the run (as a
   * lost lease does); a line the rules refuse, or a database that cannot be reached, is counted
   * with the other ignored lines and its reason logged at the end.
   */
  private void record(String what, Runnable write) {
    try {
      write.run();
    } catch (RunCancelledException e) {
      count(what + " refused: the run was stopped or no longer holds its instance");
    } catch (IllegalArgumentException e) {
      count(what + " refused: " + e.getMessage());
    } catch (UncheckedIOException e) {
      count(what + " not stored: " + e.getMessage());
    }
  }

  private void count(String why) {
    agents.ignoredLine();
    synchronized (ignored) {
      ignored.merge(why, 1, Integer::sum);
    }
  }

  private void logIgnored(Streams.LinesRead read) {
    synchronized (ignored) {
      if (!ignored.isEmpty()) {
        StringBuilder sb = new StringBuilder();
        for (Entry<String, Integer> e : ignored.entrySet()) {
          sb.append(sb.length() == 0 ? "" : ", ")
              .append(e.getValue())
              .append(" ")
              .append(e.getKey());
        }
        log.warn(
            "{}/{} attempt {}: ignored protocol line(s) ({}); this worker speaks protocol {}",
            context.taskId(),
            context.windowKey(),
            context.attempt(),
            sb,
            Protocol.VERSION);
      }
    }
    if (read != null && read.unreadBytes() > 0) {
      log.warn(
          "{}/{} attempt {}: stdout beyond {} bytes was not read ({} bytes dropped)",
          context.taskId(),
          context.windowKey(),
          context.attempt(),
          agents.limits().maxStdoutBytes(),
          read.unreadBytes());
    }
  }

  private void writeStdin(OutputStream in, ObjectNode resume) {
    try (in) {
      in.write(RunContext.json(context, resume).getBytes(StandardCharsets.UTF_8));
      in.write('\n');
    } catch (IOException e) {
      // The agent does not read its stdin (or exited first): it has the environment.
      log.debug("{}/{}: stdin not read: {}", context.taskId(), context.windowKey(), e.toString());
    }
  }

  private <T> T await(Future<T> f, T otherwise) {
    try {
      return f.get(READER_WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return otherwise;
    } catch (ExecutionException e) {
      log.warn(
          "{}/{}: reading the command's output failed: {}",
          context.taskId(),
          context.windowKey(),
          e.getCause().toString());
      return otherwise;
    } catch (TimeoutException e) {
      // A process outside the tree holds the pipe open; its reader stays blocked until it exits.
      log.warn(
          "{}/{}: the command's output was still open {} ms after its tree was gone (a process"
              + " that left the tree holds it); not waiting for it",
          context.taskId(),
          context.windowKey(),
          READER_WAIT_MILLIS);
      return otherwise;
    }
  }
}
