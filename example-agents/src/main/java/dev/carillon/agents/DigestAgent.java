package dev.carillon.agents;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Handler {@code digest}: turns a list of items (headlines, tickets, log lines) or a source text
 * into a digest, writes the full digest as a Markdown file and returns the digest as the summary
 * with the file's URI. The worker keeps only the first few KiB of the summary; the file always
 * holds all of it.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>meaning</th></tr>
 *   <tr><td>items</td><td>a JSON array of strings, one digest line each</td></tr>
 *   <tr><td>text</td><td>a source text, used when {@code items} is absent; each sentence becomes
 *       one line</td></tr>
 *   <tr><td>title</td><td>the heading (default: the task id)</td></tr>
 *   <tr><td>artifactDir</td><td>where to write the file (default {@code
 *       java.io.tmpdir/carillon-artifacts})</td></tr>
 * </table>
 *
 * <p>The file is named after the idempotency key, so a re-run of the same window overwrites its own
 * output instead of adding a second file; it is written to a temporary file and moved into place,
 * so readers never see half a digest.
 */
public final class DigestAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "digest";

  /** Words too common to say anything about the content. */
  private static final java.util.Set<String> STOP_WORDS =
      java.util.Set.of(
          "the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "is", "are", "was", "with",
          "at", "by", "it", "its", "be", "as", "that", "this", "from");

  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'-]*");
  private static final int TOP_WORDS = 5;

  /** Creates the agent; {@link java.util.ServiceLoader} needs a public no-argument constructor. */
  public DigestAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws IOException {
    Params p = Params.parse(TYPE, context.paramsJson());
    List<String> items = items(p);
    context.heartbeat("digesting " + items.size() + " items");
    String title = p.text("title", context.taskId());
    String digest = render(title, context, items);
    context.checkCancelled();

    Path dir =
        Path.of(
            p.text(
                "artifactDir",
                Path.of(System.getProperty("java.io.tmpdir"), "carillon-artifacts").toString()));
    Path file = write(dir, fileName(context.idempotencyKey()), digest);
    return AgentResult.of(digest, file.toUri());
  }

  static List<String> items(Params p) {
    JsonNode items = p.node("items");
    if (items != null) {
      if (!items.isArray()) {
        throw new NonRetryableException("digest: param \"items\" must be an array of strings");
      }
      List<String> out = new ArrayList<>(items.size());
      for (JsonNode item : items) {
        if (!item.isTextual()) {
          throw new NonRetryableException(
              "digest: every entry of \"items\" must be a string, found " + item);
        }
        if (!item.textValue().isBlank()) {
          out.add(item.textValue().strip());
        }
      }
      return out;
    }
    String text = p.text("text", null);
    if (text == null) {
      throw new NonRetryableException("digest: params need \"items\" (an array) or \"text\"");
    }
    List<String> out = new ArrayList<>();
    for (String s : SENTENCE_END.split(text.strip())) {
      if (!s.isBlank()) {
        out.add(s.strip().replaceAll("\\s+", " "));
      }
    }
    return out;
  }

  /** The digest as Markdown: a heading, a one-line overview, then one bullet per item. */
  static String render(String title, AgentContext context, List<String> items) {
    int words = 0;
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String item : items) {
      var m = WORD.matcher(item);
      while (m.find()) {
        words++;
        String w = m.group().toLowerCase(Locale.ROOT);
        if (w.length() > 2 && !STOP_WORDS.contains(w)) {
          counts.merge(w, 1, Integer::sum);
        }
      }
    }
    String top =
        counts.entrySet().stream()
            .sorted(
                Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                    .thenComparing(Map.Entry.comparingByKey()))
            .limit(TOP_WORDS)
            .map(Map.Entry::getKey)
            .collect(Collectors.joining(", "));
    StringBuilder sb = new StringBuilder();
    sb.append("# ").append(title).append(" (").append(context.windowKey()).append(")\n");
    sb.append(items.size()).append(" items, ").append(words).append(" words");
    if (!top.isEmpty()) {
      sb.append("; most frequent: ").append(top);
    }
    sb.append('\n');
    for (String item : items) {
      sb.append("- ").append(item).append('\n');
    }
    return sb.toString();
  }

  /** A file name from the idempotency key: same key, same file. */
  static String fileName(String idempotencyKey) {
    return idempotencyKey.replaceAll("[^A-Za-z0-9._-]", "_") + ".md";
  }

  private static Path write(Path dir, String name, String content) throws IOException {
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, name, ".tmp");
    try {
      Files.writeString(tmp, content, StandardCharsets.UTF_8);
      return Files.move(
          tmp,
          dir.resolve(name),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
