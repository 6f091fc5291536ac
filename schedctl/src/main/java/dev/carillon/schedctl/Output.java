package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Prints results as aligned tables for people or as JSON for scripts ({@code -o json}). */
final class Output {
  /** The {@code -o} choices. */
  enum Format {
    TABLE,
    JSON,
    YAML
  }

  /** Instants as ISO-8601 text, durations as {@code PT5M}: what scripts parse without guessing. */
  static final ObjectMapper JSON =
      JsonMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT)
          .build();

  /** The same shapes as {@link #JSON}, as a YAML document. */
  static final ObjectMapper YAML =
      YAMLMapper.builder()
          .addModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
          .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
          .build();

  private final PrintStream out;
  private final Format format;

  Output(PrintStream out, Format format) {
    this.out = out;
    this.format = format;
  }

  /** Whether the output is for scripts: JSON or YAML, printed by {@link #printJson}. */
  boolean json() {
    return format == Format.JSON || format == Format.YAML;
  }

  /** Prints {@code value} as JSON, or as YAML with {@code -o yaml}. */
  void printJson(Object value) {
    try {
      if (format == Format.YAML) {
        out.print(YAML.writeValueAsString(value));
        return;
      }
      out.println(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON output: " + e.getOriginalMessage(), e);
    }
  }

  void line(String text) {
    out.println(text);
  }

  /** Prints rows under headers, columns padded to their widest cell; null cells print as "-". */
  void table(List<String> headers, List<List<String>> rows) {
    List<List<String>> all = new ArrayList<>();
    all.add(headers);
    for (List<String> row : rows) {
      all.add(row.stream().map(Output::cell).toList());
    }
    int[] widths = new int[headers.size()];
    for (List<String> row : all) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : all) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        String c = row.get(i);
        sb.append(c);
        if (i < row.size() - 1) {
          sb.append(" ".repeat(widths[i] - c.length() + 2));
        }
      }
      out.println(sb.toString().stripTrailing());
    }
  }

  /** Key/value lines for one object, keys padded. */
  void fields(List<List<String>> pairs) {
    int width = pairs.stream().mapToInt(p -> p.get(0).length()).max().orElse(0);
    for (List<String> p : pairs) {
      out.println(p.get(0) + ":" + " ".repeat(width - p.get(0).length() + 1) + cell(p.get(1)));
    }
  }

  private static String cell(String s) {
    if (s == null || s.isEmpty()) {
      return "-";
    }
    // One row per line: a reason with a newline must not break the table.
    return s.replace("\r", "").replace('\n', ' ');
  }

  /** {@code s} cut to {@code max} characters, with an ellipsis when cut. */
  static String abbreviate(String s, int max) {
    if (s == null || s.length() <= max) {
      return s;
    }
    return s.substring(0, max - 3) + "...";
  }
}
