package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.carillon.model.Durations;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import dev.carillon.model.task.TaskDefinition;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads a task file into {@link TaskDefinition}s, reporting every problem in the file at once, each
 * naming the task, the field and the value. Used by {@code schedctl apply}, and meant for anything
 * else that loads task files (the local stack).
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
 * timout} must not silently fall back to the default), an id may appear only once per file,
 * durations are ISO-8601 ({@code PT5M}) or short ({@code 5m}, {@code 1h30m}), a bare number is
 * refused because its unit would be a guess, and YAML that does not parse is reported with its line
 * and column. {@code paused} is not a file key: it is operational state, changed by {@code schedctl
 * pause} and {@code resume}.
 *
 * <p>Stateless and thread-safe.
 */
public final class TaskFile {
  /**
   * Largest file parsed. Params are capped at 64 KiB per task, so this allows dozens of maximal
   * tasks or thousands of ordinary ones. The cap exists because SnakeYAML's scanner is quadratic in
   * the length of one scalar (a 10 MB value takes half a minute); a larger file is refused after a
   * cheap line scan that names the task and field holding the bulk.
   */
  public static final int MAX_FILE_BYTES = 2 * 1024 * 1024;

  static final Set<String> TOP_KEYS = Set.of("tasks");
  static final Set<String> TASK_KEYS =
      Set.of(
          "id",
          "handler",
          "schedule",
          "overlap",
          "catchup",
          "timeout",
          "retry",
          "params",
          "after",
          "event",
          "condition");
  static final Set<String> SCHEDULE_KEYS = Set.of("cron", "zone", "window");

  private static final YAMLMapper YAML = yamlMapper();
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private TaskFile() {}

  /**
   * One problem in a file.
   *
   * @param where the task as the user knows it ({@code task 'daily-digest'}, or {@code tasks[2]}
   *     when it has no usable id) or the file and position for a syntax error
   * @param field the field path ({@code schedule.zone}, {@code retry.delays[1]}), or null when the
   *     problem is not about one field
   * @param value the rejected value, abbreviated; null when missing
   * @param message the rule the value breaks
   */
  public record FileProblem(String where, String field, Object value, String message) {
    public FileProblem {
      Objects.requireNonNull(where, "where");
      Objects.requireNonNull(message, "message");
    }

    static FileProblem of(String where, Problem p) {
      return new FileProblem(where, p.field(), p.value(), p.message());
    }

    /** The problem as one line, e.g. {@code task 'x': schedule.zone='Mars/Base': is not ...}. */
    public String line() {
      return where
          + ": "
          + (field == null ? message : new Problem(field, value, message).toString());
    }
  }

  /**
   * What a file holds: every definition when it is valid, or every problem when it is not (then
   * {@link #definitions()} is empty, so that nothing of a broken file is applied by accident).
   */
  public record Result(List<TaskDefinition> definitions, List<FileProblem> problems) {
    public Result {
      definitions = List.copyOf(definitions);
      problems = List.copyOf(problems);
    }

    public boolean valid() {
      return problems.isEmpty();
    }

    /**
     * The definitions of a valid file.
     *
     * @throws IllegalArgumentException listing every problem, one per line
     */
    public List<TaskDefinition> orThrow() {
      if (!valid()) {
        throw new IllegalArgumentException(
            problems.stream().map(FileProblem::line).collect(Collectors.joining("\n")));
      }
      return definitions;
    }
  }

  /** Reads and checks the file at {@code file}. Never throws for bad content or IO. */
  public static Result parse(Path file) {
    String name = file.toString();
    try {
      long size = Files.size(file);
      if (size > 16L * MAX_FILE_BYTES) {
        return failed(
            new FileProblem(
                name,
                null,
                null,
                "is " + size + " bytes; a task file may hold at most " + MAX_FILE_BYTES));
      }
      return parse(Files.readString(file, StandardCharsets.UTF_8), name);
    } catch (IOException e) {
      return failed(new FileProblem(name, null, null, "cannot be read: " + e));
    }
  }

  /** Reads and checks YAML text; problems with no task are reported against {@code <input>}. */
  public static Result parse(String yaml) {
    return parse(yaml, "<input>");
  }

  /**
   * Reads and checks YAML text.
   *
   * @param source names the text in messages (usually the file name)
   */
  public static Result parse(String yaml, String source) {
    int bytes = yaml.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_FILE_BYTES) {
      return failed(oversized(yaml, source, bytes));
    }
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      return failed(new FileProblem(source + at(e.getLocation()), null, null, yamlMessage(e)));
    }
    if (root == null || root.isMissingNode() || root.isNull()) {
      return failed(new FileProblem(source, null, null, "is empty; expected 'tasks:' and a list"));
    }
    if (!root.isObject()) {
      return failed(
          new FileProblem(
              source, null, null, "must be a mapping with the key 'tasks', not " + kind(root)));
    }
    List<FileProblem> problems = new ArrayList<>();
    unknownKeys(root, TOP_KEYS, "", p -> problems.add(FileProblem.of(source, p)));
    JsonNode tasks = root.get("tasks");
    if (tasks == null || tasks.isNull()) {
      problems.add(new FileProblem(source, "tasks", null, "is required: a list of tasks"));
      return failed(problems);
    }
    if (!tasks.isArray()) {
      problems.add(
          new FileProblem(source, "tasks", preview(tasks), "must be a list, not " + kind(tasks)));
      return failed(problems);
    }
    List<TaskDefinition> definitions = new ArrayList<>();
    Map<String, Integer> firstIndex = new HashMap<>();
    for (int i = 0; i < tasks.size(); i++) {
      JsonNode node = tasks.get(i);
      String where = where(node, i);
      if (!node.isObject()) {
        problems.add(
            new FileProblem(
                "tasks[" + i + "]", null, null, "must be a mapping (id, handler, schedule ...)"));
        continue;
      }
      List<Problem> own = new ArrayList<>();
      Optional<TaskDefinition> def = readTask(node, own);
      own.forEach(p -> problems.add(FileProblem.of(where, p)));
      String id = scalar(node.get("id"));
      if (id != null) {
        Integer first = firstIndex.putIfAbsent(id, i);
        if (first != null) {
          problems.add(
              new FileProblem(
                  where,
                  "id",
                  id,
                  "appears more than once in the file (tasks["
                      + first
                      + "] and tasks["
                      + i
                      + "])"));
        }
      }
      def.ifPresent(definitions::add);
    }
    return problems.isEmpty() ? new Result(definitions, List.of()) : failed(problems);
  }

  private static final Pattern ITEM = Pattern.compile("^(\\s*)- ");
  private static final Pattern KEY = Pattern.compile("^(\\s*(?:- )?)([A-Za-z_][\\w.-]*)\\s*:(.*)$");

  /**
   * Names the task and top-level field holding most of an oversized file, by lines alone (no YAML
   * parse): the section of a task's key runs from the key's line to the next key at the same
   * indentation or the next list item.
   */
  private static FileProblem oversized(String yaml, String source, int bytes) {
    String id = null;
    String key = null;
    int keyColumn = -1;
    int keyLine = 0;
    long size = 0;
    String bestWhere = source;
    String bestField = null;
    long bestSize = -1;
    int bestLine = 0;
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
          bestWhere = id == null ? source : "task '" + id + "'";
          bestField = key;
          bestLine = keyLine;
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
      bestWhere = id == null ? source : "task '" + id + "'";
      bestField = key;
      bestLine = keyLine;
    }
    String message =
        "makes the file "
            + bytes
            + " bytes; a task file may hold at most "
            + MAX_FILE_BYTES
            + " and params at most "
            + TaskDefinition.MAX_PARAMS_BYTES
            + " bytes per task; keep large inputs in an artifact store";
    return bestField == null
        ? new FileProblem(source, null, null, "is " + bytes + " bytes; at most " + MAX_FILE_BYTES)
        : new FileProblem(
            bestWhere, bestField, "<" + bestSize + " bytes from line " + bestLine + ">", message);
  }

  private static Optional<TaskDefinition> readTask(JsonNode task, List<Problem> problems) {
    unknownKeys(task, TASK_KEYS, "", problems::add);
    TaskDefinition.Builder b = TaskDefinition.builder(text(task, "id", problems));
    b.handler(text(task, "handler", problems));
    JsonNode schedule = task.get("schedule");
    if (schedule != null && !schedule.isNull()) {
      if (schedule.isObject()) {
        unknownKeys(schedule, SCHEDULE_KEYS, "schedule.", problems::add);
        b.cron(text(schedule, "cron", "schedule.cron", problems));
        b.zone(text(schedule, "zone", "schedule.zone", problems));
        String window = text(schedule, "window", "schedule.window", problems);
        if (window != null) {
          b.window(window);
        }
      } else {
        problems.add(
            new Problem(
                "schedule",
                preview(schedule),
                "must be a mapping such as {cron: \"0 0 8 * * ?\", zone: UTC, window: DAILY}"));
      }
    }
    JsonNode after = task.get("after");
    if (after != null && !after.isNull()) {
      if (after.isArray()) {
        b.after(YAML.convertValue(after, new TypeReference<List<Object>>() {}));
      } else if (after.isValueNode()) {
        b.after(List.of(after.asText()));
      } else {
        problems.add(new Problem("after", preview(after), "must be a list of task ids"));
      }
    }
    for (String kind : List.of("event", "condition")) {
      JsonNode spec = task.get(kind);
      if (spec == null || spec.isNull()) {
        continue;
      }
      if (!spec.isObject()) {
        problems.add(new Problem(kind, preview(spec), "must be a mapping"));
      } else if (kind.equals("event")) {
        b.event(YAML.convertValue(spec, MAP));
      } else {
        b.condition(YAML.convertValue(spec, MAP));
      }
    }
    String overlap = text(task, "overlap", problems);
    if (overlap != null) {
      b.overlap(overlap);
    }
    duration(task, "catchup", problems).ifPresent(b::catchup);
    duration(task, "timeout", problems).ifPresent(b::timeout);
    JsonNode retry = task.get("retry");
    if (retry != null && !retry.isNull()) {
      if (retry.isObject()) {
        b.retrySpec(YAML.convertValue(retry, MAP));
      } else {
        problems.add(
            new Problem(
                "retry",
                preview(retry),
                "must be a mapping such as {policy: DELAYED, delays: [5m, 15m], maxRetries: 2}"));
      }
    }
    JsonNode params = task.get("params");
    if (params != null && !params.isNull()) {
      if (params.isObject()) {
        try {
          b.paramsJson(JSON.writeValueAsString(params));
        } catch (JsonProcessingException e) {
          problems.add(new Problem("params", null, "cannot be written as JSON: " + e));
        }
      } else {
        problems.add(
            new Problem("params", preview(params), "must be a mapping (a JSON object) or absent"));
      }
    }
    try {
      TaskDefinition def = b.build();
      return problems.isEmpty() ? Optional.of(def) : Optional.empty();
    } catch (InvalidTaskException e) {
      // The builder reports "schedule.cron is required" for a schedule we already refused as a
      // whole; keep one problem per field.
      for (Problem p : e.problems()) {
        boolean covered =
            problems.stream()
                .anyMatch(
                    q -> p.field().equals(q.field()) || p.field().startsWith(q.field() + "."));
        if (!covered) {
          problems.add(p);
        }
      }
    } catch (ArithmeticException e) {
      // Durations.tryParse overflows on e.g. "99999999999999d" in a retry delay.
      problems.add(new Problem("retry", preview(retry), "holds a duration too large to represent"));
    }
    return Optional.empty();
  }

  private static Optional<Duration> duration(JsonNode task, String key, List<Problem> problems) {
    JsonNode n = task.get(key);
    if (n == null || n.isNull()) {
      return Optional.empty();
    }
    if (n.isNumber()) {
      problems.add(new Problem(key, n.asText(), "a number needs a unit, e.g. 5m, 1h or PT5M"));
      return Optional.empty();
    }
    if (!n.isValueNode()) {
      problems.add(new Problem(key, preview(n), "must be a duration such as 5m, 1h or PT5M"));
      return Optional.empty();
    }
    Optional<Duration> d;
    try {
      d = Durations.tryParse(n.asText());
    } catch (ArithmeticException e) {
      problems.add(new Problem(key, n.asText(), "is too large to represent"));
      return Optional.empty();
    }
    if (d.isEmpty()) {
      problems.add(
          new Problem(
              key,
              n.asText(),
              "not a duration (use ISO-8601 like PT5M or 500ms, 30s, 5m, 1h, 2d)"));
    }
    return d;
  }

  private static String text(JsonNode parent, String key, List<Problem> problems) {
    return text(parent, key, key, problems);
  }

  private static String text(JsonNode parent, String key, String field, List<Problem> problems) {
    JsonNode n = parent.get(key);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isValueNode()) {
      problems.add(new Problem(field, preview(n), "must be a single value, not " + kind(n)));
      return null;
    }
    return n.asText();
  }

  private static String scalar(JsonNode n) {
    return n != null && n.isValueNode() && !n.isNull() ? n.asText() : null;
  }

  private static void unknownKeys(
      JsonNode node, Set<String> known, String prefix, Consumer<Problem> sink) {
    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> f = fields.next();
      if (!known.contains(f.getKey())) {
        String hint =
            f.getKey().equals("paused")
                ? "is not a file key; use 'schedctl pause' and 'schedctl resume'"
                : "unknown key (known: " + String.join(", ", new TreeSet<>(known)) + ")";
        sink.accept(new Problem(prefix + f.getKey(), preview(f.getValue()), hint));
      }
    }
  }

  private static String where(JsonNode task, int index) {
    String id = task.isObject() ? scalar(task.get("id")) : null;
    return id == null || id.isBlank() ? "tasks[" + index + "]" : "task '" + id + "'";
  }

  private static String preview(JsonNode n) {
    String s = n.isValueNode() ? n.asText() : n.toString();
    return Output.abbreviate(s, 80);
  }

  private static String kind(JsonNode n) {
    if (n.isArray()) {
      return "a list";
    }
    if (n.isObject()) {
      return "a mapping";
    }
    return "'" + preview(n) + "'";
  }

  private static String at(JsonLocation loc) {
    if (loc == null || loc.getLineNr() < 1) {
      return "";
    }
    return ": line " + loc.getLineNr() + ", column " + loc.getColumnNr();
  }

  private static String yamlMessage(JsonProcessingException e) {
    // The original message without Jackson's appended location and source excerpt, which `at`
    // already gives as line/column.
    String m = e.getOriginalMessage();
    return "is not valid YAML: " + (m == null ? e.toString() : m.strip().replace('\n', ' '));
  }

  private static Result failed(FileProblem problem) {
    return new Result(List.of(), List.of(problem));
  }

  private static Result failed(List<FileProblem> problems) {
    return new Result(List.of(), problems);
  }

  private static YAMLMapper yamlMapper() {
    LoaderOptions loader = new LoaderOptions();
    // SnakeYAML stops at 3 MB by default; let large files through to the per-field rules, which
    // name the task and field (a 10 MB params blob is "params is larger than 64 KiB", not a
    // parse error).
    loader.setCodePointLimit(MAX_FILE_BYTES);
    YAMLFactory factory =
        YAMLFactory.builder()
            .loaderOptions(loader)
            .streamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(MAX_FILE_BYTES).build())
            .build();
    YAMLMapper mapper = new YAMLMapper(factory);
    mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    // A second YAML document ("---") would otherwise be ignored without a word.
    mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    return mapper;
  }
}
