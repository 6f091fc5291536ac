package dev.carillon.local;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * How to run the local stack.
 *
 * @param dataDir where PostgreSQL, Kafka and ZooKeeper keep their data between runs
 * @param fresh wipe {@code dataDir} first
 * @param tasksFile the task file applied at start ({@code examples/tasks.yaml})
 * @param adminPortBase the trigger's admin port; the worker and retry service use the next two
 *     ({@code 0} picks free ports)
 * @param apiPort the API's port on 127.0.0.1 ({@code 0} picks a free port)
 * @param pluginDir a directory of plugin jars for the worker ({@code worker.plugin-dir}), besides
 *     the example agents; empty for none
 */
public record LocalStackOptions(
    Path dataDir,
    boolean fresh,
    Path tasksFile,
    int adminPortBase,
    int apiPort,
    Optional<Path> pluginDir) {
  public static final Path DEFAULT_DATA_DIR = Path.of(".carillon", "data");
  public static final Path DEFAULT_TASKS = Path.of("examples", "tasks.yaml");
  public static final int DEFAULT_ADMIN_PORT = 8081;
  public static final int DEFAULT_API_PORT = 8080;

  public LocalStackOptions {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(tasksFile, "tasksFile");
    Objects.requireNonNull(pluginDir, "pluginDir");
  }

  /** Without a plugin directory. */
  public LocalStackOptions(
      Path dataDir, boolean fresh, Path tasksFile, int adminPortBase, int apiPort) {
    this(dataDir, fresh, tasksFile, adminPortBase, apiPort, Optional.empty());
  }

  /**
   * With the API on its default port, or on a free one when the admin ports are free ones, and
   * without a plugin directory.
   */
  public LocalStackOptions(Path dataDir, boolean fresh, Path tasksFile, int adminPortBase) {
    this(dataDir, fresh, tasksFile, adminPortBase, adminPortBase == 0 ? 0 : DEFAULT_API_PORT);
  }

  /**
   * Parses {@code --data-dir DIR}, {@code --fresh}, {@code --tasks FILE}, {@code --admin-port N},
   * {@code --api-port N}, {@code --plugin-dir DIR}.
   *
   * @throws IllegalArgumentException naming the option and the value when one is wrong
   */
  public static LocalStackOptions parse(String[] args) {
    Path dataDir = DEFAULT_DATA_DIR;
    Path tasks = DEFAULT_TASKS;
    boolean fresh = false;
    int port = DEFAULT_ADMIN_PORT;
    int apiPort = DEFAULT_API_PORT;
    Optional<Path> plugins = Optional.empty();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--fresh" -> fresh = true;
        case "--data-dir" -> dataDir = Path.of(value(args, ++i, "--data-dir"));
        case "--tasks" -> tasks = Path.of(value(args, ++i, "--tasks"));
        case "--plugin-dir" -> {
          Path dir = Path.of(value(args, ++i, "--plugin-dir"));
          if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException(
                "--plugin-dir must be a directory of plugin jars, was '" + dir + "'");
          }
          plugins = Optional.of(dir);
        }
        case "--admin-port" -> port = port(value(args, ++i, "--admin-port"), "--admin-port");
        case "--api-port" -> apiPort = port(value(args, ++i, "--api-port"), "--api-port");
        case "-h", "--help" -> throw new IllegalArgumentException(usage());
        default ->
            throw new IllegalArgumentException("unknown option '" + args[i] + "'\n" + usage());
      }
    }
    return new LocalStackOptions(dataDir, fresh, tasks, port, apiPort, plugins);
  }

  private static int port(String v, String option) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a port number, was '" + v + "'");
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new IllegalArgumentException(option + " needs a value\n" + usage());
    }
    return args[i];
  }

  static String usage() {
    return "usage: carillon-local [--fresh] [--data-dir DIR] [--tasks FILE] [--plugin-dir DIR]"
        + " [--admin-port N] [--api-port N]";
  }
}
