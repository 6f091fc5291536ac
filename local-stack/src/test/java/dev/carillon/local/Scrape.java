package dev.carillon.local;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One Prometheus text scrape, read the way Prometheus reads it: families with their TYPE and HELP,
 * and samples with their name, labels and value.
 */
final class Scrape {
  private static final Pattern SAMPLE =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{([^}]*)})?\\s+(\\S+)");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  /** One sample line. */
  record Sample(String name, Map<String, String> labels, double value) {}

  final String text;
  final Map<String, String> types = new LinkedHashMap<>();
  final Map<String, String> help = new LinkedHashMap<>();
  final List<Sample> samples = new java.util.ArrayList<>();

  Scrape(String text) {
    this.text = text;
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        String[] p = line.substring(7).split(" ", 2);
        types.put(p[0], p.length > 1 ? p[1].trim() : "");
      } else if (line.startsWith("# HELP ")) {
        String[] p = line.substring(7).split(" ", 2);
        help.put(p[0], p.length > 1 ? p[1].trim() : "");
      } else if (!line.isBlank() && !line.startsWith("#")) {
        Matcher m = SAMPLE.matcher(line);
        if (!m.find()) {
          throw new AssertionError("not a sample line: " + line);
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (m.group(3) != null) {
          Matcher l = LABEL.matcher(m.group(3));
          while (l.find()) {
            labels.put(l.group(1), l.group(2));
          }
        }
        samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
      }
    }
  }

  /** The names of every sample line. */
  Set<String> sampleNames() {
    Set<String> out = new LinkedHashSet<>();
    samples.forEach(s -> out.add(s.name()));
    return out;
  }

  List<Sample> samples(String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }

  /** The sum of {@code name}'s samples (e.g. a histogram's {@code _count} over its labels). */
  double sum(String name) {
    return samples(name).stream().mapToDouble(Sample::value).sum();
  }

  /** The distinct values of {@code label} among {@code name}'s samples. */
  Set<String> labelValues(String name, String label) {
    Set<String> out = new LinkedHashSet<>();
    samples(name)
        .forEach(
            s -> {
              if (s.labels().containsKey(label)) {
                out.add(s.labels().get(label));
              }
            });
    return out;
  }
}
