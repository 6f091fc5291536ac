package dev.carillon.worker.exec;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Finding a command's program before it is started, to say clearly when it is missing. */
final class Programs {
  private Programs() {}

  /**
   * Checks that {@code program} can be run: a path (relative to {@code dir}, or to the worker's
   * directory) must be an executable file; a bare name must be one in a directory of {@code path}.
   *
   * @throws IOException saying what is missing
   */
  static void check(String program, Optional<String> dir, String path) throws IOException {
    if (dir.isPresent() && !Files.isDirectory(Path.of(dir.get()))) {
      throw new IOException("the working directory " + dir.get() + " does not exist");
    }
    if (program.contains("/")) {
      Path p = Path.of(program);
      if (!p.isAbsolute() && dir.isPresent()) {
        p = Path.of(dir.get()).resolve(p);
      }
      if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
        throw new IOException("no executable file " + p);
      }
      return;
    }
    if (path != null) {
      for (String d : path.split(File.pathSeparator)) {
        Path p = Path.of(d.isEmpty() ? "." : d, program);
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return;
        }
      }
    }
    throw new IOException("no program " + program + " on the PATH " + path);
  }
}
