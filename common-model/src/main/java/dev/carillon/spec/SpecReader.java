package dev.carillon.spec;

import dev.carillon.model.task.TaskDefinition;
import dev.carillon.spec.Node.Position;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads task definitions from YAML or JSON text: the files {@code schedctl apply} reads, and the
 * same specs as JSON (the HTTP API's bodies). Every problem of the text is reported at once, each
 * with its line and column, the task, the field and the value; a text with any problem yields no
 * definition, so nothing of it is applied by accident. The two formats are read by the same code
 * and give the same messages.
 *
 * <pre>
 * tasks:
 *   - id: daily-digest
 *     handler: digest
 *     schedule: { cron: "0 0 8 * * ?", zone: Asia/Shanghai, window: DAILY }
 *     overlap: SKIP
 *     catchup: 1h
 *     timeout: 20m
 *     retry: { policy: DELAYED, delays: [5m, 15m, 30m], maxRetries: 3 }
 *     params: { channel: "#news" }
 *   - id: remind-u42                   # one-shot: fires once, at this instant (window EVERY_FIRE)
 *     handler: digest
 *     at: 2026-12-24T09:00:00+01:00
 *   - id: publish                      # dependency trigger: after every upstream's window succeeded
 *     handler: noop
 *     after: [daily-digest]
 *     schedule: { window: DAILY }      # must equal the upstreams' window kind
 *   - id: on-order                     # event trigger: one instance per order id per 30 s
 *     handler: noop
 *     event: { topic: orders, key: "json:orderId", coalesce: 30s, ratePerSecond: 100 }
 *   - id: when-ready                   # condition trigger, polled within each window
 *     handler: noop
 *     schedule: { zone: UTC, window: HOURLY }
 *     condition: { type: file-ready, every: 5m, debounce: 2, params: { path: /data/x } }
 * </pre>
 *
 * <p>Rules beyond {@link TaskDefinition}'s own: unknown keys are refused by name (a misspelt {@code
 * timout} must not silently fall back to the default), an id may appear only once per text,
 * durations are ISO-8601 ({@code PT5M}) or short ({@code 5m}, {@code 1h30m}) and a bare number is
 * refused because its unit would be a guess, duplicate keys and a second YAML document are refused.
 * {@code paused} is not a spec key: it is operational state ({@code schedctl pause}).
 *
 * <p>Stateless and thread-safe.
 */
public final class SpecReader {
  /**
   * The largest text read, in UTF-8 bytes. Params are capped at 64 KiB per task, so this allows
   * dozens of maximal tasks or thousands of ordinary ones. The cap exists because SnakeYAML's
   * scanner is quadratic in the length of one scalar (a 10 MB value takes half a minute); a larger
   * YAML text is refused after a cheap line scan that names the task and field holding the bulk.
   */
  public static final int MAX_TEXT_BYTES = NodeParser.MAX_TEXT_CHARS;

  static final Set<String> TOP_KEYS = Set.of("tasks");

  private SpecReader() {}

  /**
   * Reads a list of tasks, {@code {tasks: [...]}}.
   *
   * @param source names the text in problems (a file name, {@code <request>})
   * @return the definitions, in the order written
   * @throws InvalidSpecException listing every problem of the text
   */
  public static List<TaskDefinition> read(String text, Format format, String source) {
    Node.Mapping root = root(text, format, source, "a mapping with the key 'tasks'");
    List<SpecProblem> problems = new ArrayList<>();
    Problems top = new Problems();
    top.unknownKeys(root, "", TOP_KEYS, Problems.unknownKey(TOP_KEYS));
    Node tasks = root.get("tasks");
    if (tasks == null) {
      top.add("tasks", root, null, "is required: a list of tasks");
    } else if (!(tasks instanceof Node.Sequence)) {
      top.add("tasks", tasks, tasks.plain(), "must be a list, not " + tasks.describe());
    }
    collect(problems, source, null, top);
    List<TaskDefinition> definitions = new ArrayList<>();
    if (tasks instanceof Node.Sequence list) {
      Map<String, Integer> firstIndex = new HashMap<>();
      for (int i = 0; i < list.items().size(); i++) {
        Node item = list.items().get(i);
        if (!(item instanceof Node.Mapping task)) {
          problems.add(
              problem(
                  source,
                  item.at(),
                  "tasks[" + i + "]",
                  null,
                  null,
                  "must be a mapping (id, handler, schedule ...)"));
          continue;
        }
        String where = where(task).orElse("tasks[" + i + "]");
        Problems own = new Problems();
        TaskSpec.read(task, own).ifPresent(definitions::add);
        Optional<String> id = scalarId(task);
        if (id.isPresent()) {
          Integer first = firstIndex.putIfAbsent(id.get(), i);
          if (first != null) {
            own.add(
                "id",
                task.get("id"),
                id.get(),
                "appears more than once in the file (tasks[" + first + "] and tasks[" + i + "])");
          }
        }
        collect(problems, source, where, own);
      }
    }
    return orThrow(problems, definitions);
  }

  /**
   * Reads one task, a mapping such as {@code {id: daily-digest, handler: digest, schedule: {...}}}.
   *
   * @param source names the text in problems
   * @throws InvalidSpecException listing every problem of the text
   */
  public static TaskDefinition readOne(String text, Format format, String source) {
    Node.Mapping task = root(text, format, source, "a task mapping (id, handler, schedule ...)");
    Problems own = new Problems();
    Optional<TaskDefinition> def = TaskSpec.read(task, own);
    List<SpecProblem> problems = new ArrayList<>();
    collect(problems, source, where(task).orElse(null), own);
    return orThrow(problems, def.stream().toList()).get(0);
  }

  /** The text's root mapping, after the size and syntax checks. */
  private static Node.Mapping root(String text, Format format, String source, String expected) {
    int bytes = text.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_TEXT_BYTES) {
      throw new InvalidSpecException(
          List.of(
              format == Format.YAML
                  ? oversized(text, source, bytes)
                  : problem(
                      source,
                      Position.NONE,
                      null,
                      null,
                      null,
                      "is " + bytes + " bytes; at most " + MAX_TEXT_BYTES)));
    }
    NodeParser.Parsed parsed = NodeParser.parse(text, format);
    if (parsed.error().isPresent()) {
      NodeParser.SyntaxError e = parsed.error().get();
      throw new InvalidSpecException(
          List.of(
              problem(
                  source,
                  e.at(),
                  null,
                  null,
                  null,
                  "is not valid " + format + ": " + e.message())));
    }
    Node root = parsed.root().orElse(null);
    if (root == null || root.isNull()) {
      throw new InvalidSpecException(
          List.of(
              problem(
                  source,
                  Position.NONE,
                  null,
                  null,
                  null,
                  format == Format.YAML && expected.contains("'tasks'")
                      ? "is empty; expected 'tasks:' and a list"
                      : "is empty; expected " + expected)));
    }
    if (!(root instanceof Node.Mapping m)) {
      throw new InvalidSpecException(
          List.of(
              problem(
                  source,
                  root.at(),
                  null,
                  null,
                  null,
                  "must be " + expected + ", not " + root.describe())));
    }
    return m;
  }

  private static List<TaskDefinition> orThrow(
      List<SpecProblem> problems, List<TaskDefinition> definitions) {
    if (!problems.isEmpty()) {
      // In the order of the text; problems without a position (about the whole text) first.
      List<SpecProblem> sorted = new ArrayList<>(problems);
      sorted.sort(Comparator.comparingInt(SpecProblem::line).thenComparingInt(SpecProblem::column));
      throw new InvalidSpecException(sorted);
    }
    return List.copyOf(definitions);
  }

  private static void collect(
      List<SpecProblem> out, String source, String where, Problems problems) {
    for (Problems.Located l : problems.located()) {
      out.add(
          problem(
              source,
              l.at(),
              where,
              l.problem().field(),
              l.problem().value(),
              l.problem().message()));
    }
  }

  private static SpecProblem problem(
      String source, Position at, String task, String field, Object value, String message) {
    return new SpecProblem(source, at.line(), at.column(), task, field, value, message);
  }

  private static Optional<String> scalarId(Node.Mapping task) {
    return task.get("id") instanceof Node.Scalar s && s.value() != null
        ? Optional.of(s.text())
        : Optional.empty();
  }

  /** The task as the user knows it: {@code task 'id'}, when it has a usable id. */
  private static Optional<String> where(Node.Mapping task) {
    return scalarId(task).filter(id -> !id.isBlank()).map(id -> "task '" + id + "'");
  }

  private static final Pattern ITEM = Pattern.compile("^(\\s*)- ");
  private static final Pattern KEY = Pattern.compile("^(\\s*(?:- )?)([A-Za-z_][\\w.-]*)\\s*:(.*)$");

  /**
   * Names the task and top-level field holding most of an oversized YAML text, by lines alone (no
   * parse): the section of a task's key runs from the key's line to the next key at the same
   * indentation or the next list item.
   */
  private static SpecProblem oversized(String yaml, String source, int bytes) {
    String id = null;
    String key = null;
    int keyColumn = -1;
    int keyLine = 0;
    long size = 0;
    String bestWhere = null;
    String bestField = null;
    long bestSize = -1;
    Position bestAt = Position.NONE;
    String[] lines = yaml.split("\n", -1);
    for (int n = 0; n < lines.length; n++) {
      String line = lines[n];
      Matcher item = ITEM.matcher(line);
      Matcher k = KEY.matcher(line);
      boolean newItem = item.find();
      boolean isKey = k.matches();
      boolean keyHere = isKey && (newItem || k.group(1).length() <= keyColumn || key == null);
      if (newItem || keyHere) {
        if (key != null && size > bestSize) {
          bestSize = size;
          bestWhere = id == null ? null : "task '" + id + "'";
          bestField = key;
          bestAt = new Position(keyLine, keyColumn + 1);
        }
        if (newItem) {
          id = null;
        }
        key = null;
        size = 0;
        if (isKey) {
          key = k.group(2);
          keyColumn = k.group(1).length();
          keyLine = n + 1;
          if (key.equals("id")) {
            id = k.group(3).trim().replaceAll("^[\"']|[\"']$", "");
          }
        }
      }
      size += line.length() + 1;
    }
    if (key != null && size > bestSize) {
      bestSize = size;
      bestWhere = id == null ? null : "task '" + id + "'";
      bestField = key;
      bestAt = new Position(keyLine, keyColumn + 1);
    }
    String message =
        "makes the file "
            + bytes
            + " bytes; a task file may hold at most "
            + MAX_TEXT_BYTES
            + " and params at most "
            + TaskDefinition.MAX_PARAMS_BYTES
            + " bytes per task; keep large inputs in an artifact store";
    return bestField == null
        ? problem(
            source,
            Position.NONE,
            null,
            null,
            null,
            "is " + bytes + " bytes; at most " + MAX_TEXT_BYTES)
        : problem(source, bestAt, bestWhere, bestField, "<" + bestSize + " bytes>", message);
  }
}
