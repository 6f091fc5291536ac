package dev.carillon.devstack;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a {@link DevStack} from the command line, prints how to connect, and runs until Ctrl-C.
 *
 * <pre>
 * DevStackMain [--data-dir DIR] [--fresh] [--synchronous-commit] [--listen-address IP]
 *              [--control]
 *   --data-dir DIR  keep PostgreSQL, Kafka and ZooKeeper data, and their ports, in DIR between
 *                   runs (default: a temporary directory deleted on exit)
 *   --fresh         wipe DIR's data before starting (the ports are kept)
 *   --synchronous-commit
 *                   run PostgreSQL with synchronous_commit on, for runs that kill it with -9
 *   --listen-address IP
 *                   listen on IP (an address of this host) instead of loopback, for clients in
 *                   other network namespaces
 *   --control       read commands on stdin, one per line, and answer each with one line
 *                   "ok COMMAND" or "error COMMAND: REASON"; end of input stops the stack
 * </pre>
 *
 * <p>Control commands (used by the fault-injection suite, which runs the stack as a child process
 * and must restart servers inside it on the same ports): {@link #COMMANDS}, e.g. {@code
 * restart-postgres}, {@code kill-postgres} (SIGKILL to the postmaster; {@code start-postgres}
 * brings it back through crash recovery), {@code freeze-postgres} and {@code thaw-postgres}
 * (SIGSTOP and SIGCONT to all its processes), {@code stop-kafka}, {@code start-kafka}, {@code
 * stop-zookeeper}, {@code start-zookeeper}, {@code restart-zookeeper}. Stopping on end of input
 * means a harness that dies cannot leave the servers running.
 *
 * <p>Exit status 2 for bad arguments.
 */
public final class DevStackMain {
  private DevStackMain() {}

  /** Entry point; see the class comment for the arguments. */
  public static void main(String[] args) throws InterruptedException {
    DevStackOptions options;
    try {
      options = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("devstack: " + e.getMessage());
      System.err.println(
          "usage: DevStackMain [--data-dir DIR] [--fresh] [--synchronous-commit]"
              + " [--listen-address IP] [--control]");
      System.exit(2);
      return;
    }
    // start() registers a shutdown hook, so Ctrl-C (SIGINT) stops the servers cleanly.
    DevStack stack = DevStack.start(options);
    System.out.println(describe(stack));
    System.out.flush();
    if (control(args)) {
      serveCommands(
          stack, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
      System.exit(0);
    }
    new CountDownLatch(1).await();
  }

  static boolean control(String[] args) {
    return java.util.Arrays.asList(args).contains("--control");
  }

  /** Answers commands until end of input, then closes the stack. */
  static void serveCommands(DevStack stack, BufferedReader in) {
    PrintStream out = System.out;
    try (stack) {
      String line;
      while ((line = in.readLine()) != null) {
        String command = line.trim();
        if (command.isEmpty()) {
          continue;
        }
        try {
          execute(stack, command);
          out.println("ok " + command);
        } catch (RuntimeException e) {
          out.println("error " + command + ": " + e.getMessage());
        }
        out.flush();
      }
    } catch (IOException e) {
      System.err.println("devstack: control input failed: " + e.getMessage());
    }
  }

  /** The control commands, one per line on stdin. */
  static final List<String> COMMANDS =
      List.of(
          "restart-postgres",
          "kill-postgres",
          "start-postgres",
          "freeze-postgres",
          "thaw-postgres",
          "stop-kafka",
          "start-kafka",
          "stop-zookeeper",
          "start-zookeeper",
          "restart-zookeeper");

  static void execute(DevStack stack, String command) {
    switch (command) {
      case "restart-postgres" -> stack.restartPostgres();
      case "kill-postgres" -> stack.killPostgres();
      case "start-postgres" -> stack.startPostgres();
      case "freeze-postgres" -> stack.freezePostgres();
      case "thaw-postgres" -> stack.thawPostgres();
      case "stop-kafka" -> stack.stopKafka();
      case "start-kafka" -> stack.startKafka();
      case "stop-zookeeper" -> stack.stopZooKeeper();
      case "start-zookeeper" -> stack.startZooKeeper();
      case "restart-zookeeper" -> stack.restartZooKeeper();
      default ->
          throw new IllegalArgumentException(
              "unknown command; known: " + String.join(", ", COMMANDS));
    }
  }

  static DevStackOptions parse(String[] args) {
    DevStackOptions options = DevStackOptions.defaults();
    boolean fresh = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data-dir" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("--data-dir needs a directory");
          }
          options = options.withDataDir(Path.of(args[++i]));
        }
        case "--fresh" -> fresh = true;
        case "--synchronous-commit" -> options = options.withSynchronousCommit(true);
        case "--listen-address" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("--listen-address needs an IP address");
          }
          options = options.withListenAddress(args[++i]);
        }
        case "--control" -> {
          // read by control(args)
        }
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
      }
    }
    if (fresh && options.dataDir() == null) {
      throw new IllegalArgumentException("--fresh needs --data-dir (the default is always fresh)");
    }
    return options.withFresh(fresh);
  }

  static String describe(DevStack stack) {
    List<String> lines = new ArrayList<>();
    stack.portChanges().forEach(change -> lines.add("Note: " + change + "."));
    lines.addAll(
        List.of(
            "Carillon DevStack is up in "
                + stack.startupTime().toMillis()
                + " ms. Ctrl-C stops it.",
            "  carillon.db.url=" + stack.jdbcUrl(),
            "  carillon.db.user=" + stack.dbUser(),
            "  carillon.db.password=" + stack.dbPassword(),
            "  carillon.kafka.bootstrap=" + stack.kafkaBootstrap(),
            "  carillon.zookeeper.connect=" + stack.zkConnect(),
            "  data directory: " + stack.dataDir(),
            "  PostgreSQL default time zone: " + DevStack.POSTGRES_TIME_ZONE));
    return String.join(System.lineSeparator(), lines);
  }
}
