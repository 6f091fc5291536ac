package dev.carillon.bench.exec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code java} the worker JVMs run on, and its feature release (17, 21, 25, ...), asked of the
 * executable itself ({@code java -version}).
 *
 * @param executable the {@code java} program
 * @param feature its feature release
 * @param versionLine the first line {@code java -version} printed
 */
record WorkerJava(Path executable, int feature, String versionLine) {
  /** The first feature release with virtual threads (JEP 444). */
  static final int FIRST_WITH_VIRTUAL_THREADS = 21;

  /** The release the worker's classes are compiled for. */
  static final int OLDEST_THAT_RUNS_THE_WORKER = 17;

  private static final Pattern VERSION = Pattern.compile("version \"(1\\.)?(\\d+)");

  boolean hasVirtualThreads() {
    return feature >= FIRST_WITH_VIRTUAL_THREADS;
  }

  /**
   * The feature release in {@code java -version}'s output: {@code openjdk version "25.0.3"} gives
   * 25, {@code java version "1.8.0_392"} gives 8.
   */
  static OptionalInt feature(String versionOutput) {
    Matcher m = VERSION.matcher(versionOutput);
    return m.find() ? OptionalInt.of(Integer.parseInt(m.group(2))) : OptionalInt.empty();
  }

  /**
   * Runs {@code executable -version}.
   *
   * @throws IllegalArgumentException naming the path when it is no executable java or says no
   *     version
   */
  static WorkerJava probe(Path executable) throws IOException, InterruptedException {
    if (!Files.isRegularFile(executable) || !Files.isExecutable(executable)) {
      throw new IllegalArgumentException(
          "--java must name an executable file, was '" + executable + "'");
    }
    Process p =
        new ProcessBuilder(executable.toString(), "-version").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalArgumentException("--java " + executable + ": -version did not end in 30 s");
    }
    int feature =
        feature(out)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "--java " + executable + " printed no version: " + out.strip()));
    return new WorkerJava(
        executable,
        feature,
        out.lines().filter(l -> l.contains("version")).findFirst().orElse("").strip());
  }
}
