package dev.carillon.devstack;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a {@link DevStack} from the command line, prints how to connect, and runs until Ctrl-C.
 *
 * <pre>
 * DevStackMain [--data-dir DIR] [--fresh]
 *   --data-dir DIR  keep PostgreSQL, Kafka and ZooKeeper data in DIR between runs
 *                   (default: a temporary directory deleted on exit)
 *   --fresh         wipe DIR before starting
 * </pre>
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
      System.err.println("usage: DevStackMain [--data-dir DIR] [--fresh]");
      System.exit(2);
      return;
    }
    // start() registers a shutdown hook, so Ctrl-C (SIGINT) stops the servers cleanly.
    DevStack stack = DevStack.start(options);
    System.out.println(describe(stack));
    new CountDownLatch(1).await();
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
        default -> throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
      }
    }
    if (fresh && options.dataDir() == null) {
      throw new IllegalArgumentException("--fresh needs --data-dir (the default is always fresh)");
    }
    return options.withFresh(fresh);
  }

  static String describe(DevStack stack) {
    return String.join(
        System.lineSeparator(),
        "Carillon DevStack is up in " + stack.startupTime().toMillis() + " ms. Ctrl-C stops it.",
        "  carillon.db.url=" + stack.jdbcUrl(),
        "  carillon.db.user=" + stack.dbUser(),
        "  carillon.db.password=" + stack.dbPassword(),
        "  carillon.kafka.bootstrap=" + stack.kafkaBootstrap(),
        "  carillon.zookeeper.connect=" + stack.zkConnect(),
        "  data directory: " + stack.dataDir(),
        "  PostgreSQL default time zone: " + DevStack.POSTGRES_TIME_ZONE);
  }
}
