package dev.carillon.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine a report was measured on.
 *
 * @param loadAtStart the 1/5/15-minute load when the run started, to show how busy it was
 */
public record Machine(
    int cpus, String cpuModel, String memory, String java, String os, String loadAtStart) {

  public static Machine describe() {
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        firstLine(Path.of("/proc/cpuinfo"), "model name"),
        memTotal(),
        System.getProperty("java.vm.name") + " " + Runtime.version(),
        System.getProperty("os.name") + " " + System.getProperty("os.version"),
        loadNow());
  }

  /** The load average now, from {@code /proc/loadavg}, or {@code "?"}. */
  public static String loadNow() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  private static String firstLine(Path file, String key) {
    try {
      List<String> lines = Files.readAllLines(file);
      for (String l : lines) {
        if (l.startsWith(key)) {
          return l.substring(l.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // Not Linux: fall through.
    }
    return "?";
  }

  private static String memTotal() {
    String kb = firstLine(Path.of("/proc/meminfo"), "MemTotal");
    if (kb.equals("?")) {
      return kb;
    }
    try {
      long k = Long.parseLong(kb.replace("kB", "").trim());
      return String.format(Locale.ROOT, "%.1f GiB", k / 1024.0 / 1024.0);
    } catch (NumberFormatException e) {
      return kb;
    }
  }
}
