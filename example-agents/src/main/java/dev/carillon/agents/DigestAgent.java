package dev.carillon.agents;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.Checkpoint;
import dev.carillon.api.NonRetryableException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Handler {@code digest}: turns a list of items (headlines, tickets, log lines) or a source text
 * into a digest, writes the full digest as a Markdown file, optionally posts it to a channel, and
 * returns the digest as the summary with the file's URI. The worker keeps only the first few KiB of
 * the summary; the file always holds all of it.
 *
 * <p><b>Resumable.</b> Items are digested one by one (each one stands for a model call, {@code
 * itemDelay} long) into a partial file next to the artifact, and every {@code checkpointEvery}
 * items the agent makes the file durable and checkpoints how far it got: {@code {"next": items
 * done, "bytes": the partial file's length}}. An attempt after a crash truncates the partial file
 * to the checkpointed length (dropping lines written after the checkpoint) and continues from
 * there; if the file is missing or shorter (another host, no shared {@code artifactDir}) it starts
 * over. The digest is posted through {@code once("post-digest", ...)} with the post's idempotency
 * key, so an attempt after a crash that followed the post does not post again.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>meaning</th></tr>
 *   <tr><td>items</td><td>a JSON array of strings, one digest line each</td></tr>
 *   <tr><td>text</td><td>a source text, used when {@code items} is absent; each sentence becomes
 *       one line</td></tr>
 *   <tr><td>title</td><td>the heading (default: the task id)</td></tr>
 *   <tr><td>artifactDir</td><td>where to write the file (default {@code
 *       java.io.tmpdir/carillon-artifacts}); shared storage if attempts may run on other
 *       hosts</td></tr>
 *   <tr><td>sink</td><td>a directory to post the digest to, one new file per post (see {@link
 *       DirectorySink}); no post when absent</td></tr>
 *   <tr><td>itemDelay</td><td>how long digesting one item takes ({@code 200ms}); default 0</td></tr>
 *   <tr><td>checkpointEvery</td><td>checkpoint after this many items (1 to 10000, default 10)
 *       and after the last</td></tr>
 *   <tr><td>holdAfterPost</td><td>after a post this attempt made, work this long more before
 *       finishing ({@code 5m}), a stand-in for a slow last step; the crash tests kill the worker
 *       there</td></tr>
 * </table>
 *
 * <p>The file is named after the idempotency key, so a re-run of the same window overwrites its own
 * output instead of adding a second file; it is written to a temporary file and moved into place,
 * so readers never see half a digest.
 */
public final class DigestAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "digest";

  /** The effect key of the post. */
  public static final String POST = "post-digest";

  /** Words too common to say anything about the content. */
  private static final java.util.Set<String> STOP_WORDS =
      java.util.Set.of(
          "the", "a", "an", "and", "or", "of", "to", "in", "on", "for", "is", "are", "was", "with",
          "at", "by", "it", "its", "be", "as", "that", "this", "from");

  private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.!?])\\s+");
  private static final Pattern WORD = Pattern.compile("[\\p{L}\\p{N}][\\p{L}\\p{N}'-]*");
  private static final int TOP_WORDS = 5;
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Creates the agent; {@link java.util.ServiceLoader} needs a public no-argument constructor. */
  public DigestAgent() {}

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    Params p = Params.parse(TYPE, context.paramsJson());
    List<String> items = items(p);
    String title = p.text("title", context.taskId());
    Path dir =
        Path.of(
            p.text(
                "artifactDir",
                Path.of(System.getProperty("java.io.tmpdir"), "carillon-artifacts").toString()));
    String sink = p.text("sink", null);
    Duration itemDelay = p.duration("itemDelay", Duration.ZERO);
    long every = p.integer("checkpointEvery", 10, 1, 10_000);
    Duration holdAfterPost = p.duration("holdAfterPost", Duration.ZERO);

    String name = fileName(context.idempotencyKey());
    Files.createDirectories(dir);
    Path partial = dir.resolve(name + ".partial");
    digestItems(
        context, items, partial, resumeAt(context, partial, items.size()), itemDelay, every);
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(partial, StandardCharsets.UTF_8)) {
      lines.add(line.substring(2));
    }
    String digest = render(title, context, lines);
    context.checkCancelled();
    Path file = write(dir, name, digest);

    if (sink != null) {
      AtomicBoolean postedNow = new AtomicBoolean();
      String postId =
          context.once(
              POST,
              call -> {
                postedNow.set(true);
                return new DirectorySink(Path.of(sink)).post(digest, call.idempotencyKey());
              });
      context.heartbeat("digest posted as " + postId);
      context.checkCancelled();
      if (postedNow.get() && !holdAfterPost.isZero()) {
        // The slow last step; the crash tests kill the worker here, after the post.
        Thread.sleep(holdAfterPost.toMillis());
      }
    }
    Files.deleteIfExists(partial);
    return AgentResult.of(digest, file.toUri());
  }

  /**
   * Where to continue: after the items the last checkpoint counts, with the partial file cut back
   * to the length it had then; from the start (and an empty partial file) when there is no usable
   * checkpoint.
   */
  static int resumeAt(AgentContext context, Path partial, int total) throws IOException {
    Optional<Checkpoint> last = context.lastCheckpoint();
    if (last.isPresent()) {
      JsonNode state = readState(last.get().stateJson());
      int next = state.path("next").asInt(-1);
      long bytes = state.path("bytes").asLong(-1);
      long have = Files.exists(partial) ? Files.size(partial) : -1;
      if (next >= 0 && next <= total && bytes >= 0 && have >= bytes) {
        try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.WRITE)) {
          ch.truncate(bytes);
        }
        context.heartbeat(
            "resuming at item "
                + next
                + " of "
                + total
                + " (attempt "
                + last.get().attempt()
                + ")");
        return next;
      }
      context.heartbeat(
          "the checkpoint of attempt "
              + last.get().attempt()
              + " does not match the partial digest here; starting over");
    }
    Files.deleteIfExists(partial);
    return 0;
  }

  /** A checkpoint's state; an empty object (unusable) when it is not this agent's JSON. */
  private static JsonNode readState(String json) {
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return JSON.createObjectNode();
    }
  }

  /**
   * Digests items {@code from..} into the partial file, checkpointing as the class comment says.
   */
  private static void digestItems(
      AgentContext context,
      List<String> items,
      Path partial,
      int from,
      Duration itemDelay,
      long every)
      throws IOException, InterruptedException {
    try (FileChannel out =
        FileChannel.open(
            partial,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.APPEND)) {
      for (int i = from; i < items.size(); i++) {
        context.checkCancelled();
        if (!itemDelay.isZero()) {
          // The item's model call.
          Thread.sleep(itemDelay.toMillis());
        }
        String line = "- " + items.get(i).replaceAll("[\\r\\n]+", " ") + "\n";
        out.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));
        int done = i + 1;
        if (done % every == 0 || done == items.size()) {
          // Durable first, then checkpointed: a checkpoint never counts lines a crash could lose.
          out.force(false);
          context.checkpoint("{\"next\":" + done + ",\"bytes\":" + out.size() + "}");
          context.heartbeat("digested " + done + " of " + items.size() + " items");
        }
      }
    }
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
