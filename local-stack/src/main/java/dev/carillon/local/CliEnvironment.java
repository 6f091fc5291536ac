package dev.carillon.local;

import dev.carillon.config.Config;
import dev.carillon.devstack.DevStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The environment a command-line client needs to reach the local stack, in one place: printed when
 * the stack starts and written to {@value #FILE} in its data directory, so that another terminal
 * can {@code source} it before running {@code ./schedctl.sh}.
 *
 * <p>Today that is the database, Kafka and ZooKeeper settings that {@code schedctl} and the
 * services read from {@code CARILLON_*} variables (see {@link Config#envName}). The database user
 * is the embedded server's superuser, not {@code schedctl}'s default {@code carillon}, which does
 * not exist there. When the stack serves the HTTP API, its URL and token belong here too.
 *
 * @param variables variable name to value, in the order they are printed
 */
record CliEnvironment(Map<String, String> variables) {
  /** The file in the data directory that holds the {@code export} lines. */
  static final String FILE = "cli.env";

  CliEnvironment {
    variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
  }

  /** The settings that reach {@code devstack}'s servers. */
  static CliEnvironment of(DevStack devstack) {
    Map<String, String> v = new LinkedHashMap<>();
    v.put(Config.envName("db.url"), devstack.jdbcUrl());
    v.put(Config.envName("db.user"), devstack.dbUser());
    v.put(Config.envName("db.password"), devstack.dbPassword());
    v.put(Config.envName("kafka.bootstrap"), devstack.kafkaBootstrap());
    v.put(Config.envName("zk.connect"), devstack.zkConnect());
    return new CliEnvironment(v);
  }

  /** One POSIX shell {@code export NAME='value'} line per variable. */
  List<String> exportLines() {
    List<String> lines = new ArrayList<>();
    variables.forEach((name, value) -> lines.add("export " + name + "=" + shellQuoted(value)));
    return lines;
  }

  /**
   * Writes the {@code export} lines to {@value #FILE} in {@code dir}, readable by its owner only
   * where the file system has POSIX permissions (a token will be in it), and returns the file.
   */
  Path writeTo(Path dir) throws IOException {
    Path file = dir.resolve(FILE);
    Path tmp = dir.resolve(FILE + ".tmp");
    Files.deleteIfExists(tmp);
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    }
    List<String> lines = new ArrayList<>();
    lines.add("# Written by ./carillon-local: the environment schedctl needs to reach this stack.");
    lines.add("# Use it with:  source " + file);
    lines.addAll(exportLines());
    Files.write(tmp, lines, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return file;
  }

  private static String shellQuoted(String value) {
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
