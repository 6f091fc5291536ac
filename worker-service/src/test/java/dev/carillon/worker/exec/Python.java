package dev.carillon.worker.exec;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finds python3 on the PATH, for tests that skip without it. */
final class Python {
  private Python() {}

  static Optional<Path> find() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String d : path.split(File.pathSeparator)) {
      Path p = Path.of(d, "python3");
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
