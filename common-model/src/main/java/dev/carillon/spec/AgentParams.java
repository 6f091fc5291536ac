package dev.carillon.spec;

import dev.carillon.model.agent.BuiltInHandler;
import dev.carillon.model.agent.ExecCommand;
import dev.carillon.model.agent.HttpEndpoint;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.Problem;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of a built-in handler in a task's params: {@code params.exec} for {@code exec},
 * {@code params.http} for {@code http}. {@code schedctl apply} checks them with the rest of the
 * spec, and the worker reads them with the same rules when it runs the task; the rest of params is
 * the agent's own.
 *
 * <pre>
 * handler: exec
 * params:
 *   exec:
 *     command: [python3, examples/agents/summarize.py]   # no shell unless shell: true
 *     dir: /srv/agents          # default: the worker's working directory
 *     env: { LOG_LEVEL: info }  # set for the command
 *     passEnv: [OPENAI_API_KEY] # copied from the worker's environment when set
 *     grace: 10s                # SIGTERM, then SIGKILL after this
 *   paths: [README.md]          # the agent's own params
 *
 * handler: http
 * params:
 *   http: { url: "https://agents.internal/summarize", requestTimeout: 2m, tokenEnv: AGENT_TOKEN }
 * </pre>
 *
 * Thread-safe.
 */
public final class AgentParams {
  static final Set<String> EXEC_KEYS = Set.of("command", "shell", "dir", "env", "passEnv", "grace");
  static final Set<String> HTTP_KEYS = Set.of("url", "requestTimeout", "tokenEnv");

  private AgentParams() {}

  /**
   * The command of an {@code exec} task.
   *
   * @param taskId the task, for the exception
   * @param paramsJson the task's params
   * @throws InvalidTaskException listing every problem of {@code params.exec}
   */
  public static ExecCommand exec(String taskId, String paramsJson) {
    Problems p = new Problems();
    Optional<ExecCommand> c = exec(settings(paramsJson, BuiltInHandler.EXEC, p), p);
    return c.orElseThrow(() -> new InvalidTaskException(taskId, p.problems()));
  }

  /**
   * The endpoint of an {@code http} task.
   *
   * @param taskId the task, for the exception
   * @param paramsJson the task's params
   * @throws InvalidTaskException listing every problem of {@code params.http}
   */
  public static HttpEndpoint http(String taskId, String paramsJson) {
    Problems p = new Problems();
    Optional<HttpEndpoint> e = http(settings(paramsJson, BuiltInHandler.HTTP, p), p);
    return e.orElseThrow(() -> new InvalidTaskException(taskId, p.problems()));
  }

  /**
   * Checks the settings of a built-in {@code handler} in a spec's params, reporting to {@code p};
   * does nothing for a plugin's handler.
   *
   * @param params the params mapping, or null when the task has none
   * @param at where to report a missing setting
   */
  static void check(String handler, Node.Mapping params, Node at, Problems p) {
    Optional<BuiltInHandler> builtIn = BuiltInHandler.of(handler);
    if (builtIn.isEmpty()) {
      return;
    }
    Node.Mapping settings = settings(params, builtIn.get(), at, p);
    switch (builtIn.get()) {
      case EXEC -> exec(settings, p);
      case HTTP -> http(settings, p);
    }
  }

  private static Node.Mapping settings(String paramsJson, BuiltInHandler kind, Problems p) {
    NodeParser.Parsed parsed =
        NodeParser.parse(paramsJson == null ? "{}" : paramsJson, Format.JSON);
    if (parsed.error().isPresent() || !(parsed.root().orElse(null) instanceof Node.Mapping m)) {
      p.add("params", (Node) null, paramsJson, "not a JSON object");
      return null;
    }
    return settings(m, kind, m, p);
  }

  private static Node.Mapping settings(
      Node.Mapping params, BuiltInHandler kind, Node at, Problems p) {
    String field = "params." + kind.handler();
    Node n = params == null ? null : params.get(kind.handler());
    if (n == null) {
      p.add(
          field,
          at,
          null,
          "is required for handler '"
              + kind.handler()
              + "': "
              + (kind == BuiltInHandler.EXEC
                  ? "{command: [program, arg, ...]}"
                  : "{url: https://...}"));
      return null;
    }
    if (!(n instanceof Node.Mapping m)) {
      p.add(field, n, n.plain(), "must be a mapping");
      return null;
    }
    p.unknownKeys(
        m,
        field + ".",
        kind == BuiltInHandler.EXEC ? EXEC_KEYS : HTTP_KEYS,
        Problems.unknownKey(kind == BuiltInHandler.EXEC ? EXEC_KEYS : HTTP_KEYS));
    return m;
  }

  private static Optional<ExecCommand> exec(Node.Mapping m, Problems p) {
    if (m == null) {
      return Optional.empty();
    }
    int before = p.size();
    String at = "params.exec.";
    int beforeCommand = p.size();
    List<String> command = texts(m, "command", at + "command", p);
    boolean commandRead = p.size() == beforeCommand;
    boolean shell = bool(m, "shell", at + "shell", p);
    Values.Read<String> dir = Values.trimmed(m, "dir", at + "dir", p);
    Map<String, String> env = new LinkedHashMap<>();
    Node envNode = m.get("env");
    if (envNode instanceof Node.Mapping e) {
      e.entries()
          .forEach(
              (name, entry) -> {
                Node v = entry.value();
                if (v instanceof Node.Scalar s && s.value() != null) {
                  env.put(name, s.text());
                } else {
                  p.add(at + "env." + name, v, v.plain(), "must be a single value");
                }
              });
    } else if (envNode != null) {
      p.add(at + "env", envNode, envNode.plain(), "must be a mapping of NAME: value");
    }
    List<String> passEnv = texts(m, "passEnv", at + "passEnv", p);
    Values.Read<Duration> grace = Values.duration(m, "grace", at + "grace", p);
    Duration g = grace.value() == null ? ExecCommand.DEFAULT_GRACE : grace.value();
    // The rules run on what could be read, so that every problem is reported at once; a value that
    // could not be read was reported and is not checked again.
    List<Problem> problems =
        ExecCommand.problems(command, shell, Optional.ofNullable(dir.value()), env, passEnv, g)
            .stream()
            .filter(q -> commandRead || !q.field().startsWith(at + "command"))
            .toList();
    addAt(problems, m, at, p);
    if (p.size() != before) {
      return Optional.empty();
    }
    return Optional.of(
        new ExecCommand(command, shell, Optional.ofNullable(dir.value()), env, passEnv, g));
  }

  private static Optional<HttpEndpoint> http(Node.Mapping m, Problems p) {
    if (m == null) {
      return Optional.empty();
    }
    int before = p.size();
    String at = "params.http.";
    Values.Read<String> url = Values.trimmed(m, "url", at + "url", p);
    URI uri = null;
    if (url.present()) {
      try {
        uri = new URI(url.value());
      } catch (URISyntaxException e) {
        p.add(at + "url", m.get("url"), url.value(), "not a URL: " + e.getReason());
      }
    } else if (!url.broken()) {
      p.add(at + "url", m, null, "is required, e.g. https://agents.internal/summarize");
    }
    Values.Read<Duration> timeout = Values.duration(m, "requestTimeout", at + "requestTimeout", p);
    Values.Read<String> tokenEnv = Values.trimmed(m, "tokenEnv", at + "tokenEnv", p);
    List<Problem> problems =
        HttpEndpoint.problems(
                uri, Optional.ofNullable(timeout.value()), Optional.ofNullable(tokenEnv.value()))
            .stream()
            .filter(q -> url.present() || !q.field().equals(at + "url"))
            .toList();
    addAt(problems, m, at, p);
    if (p.size() != before) {
      return Optional.empty();
    }
    return Optional.of(
        new HttpEndpoint(
            uri, Optional.ofNullable(timeout.value()), Optional.ofNullable(tokenEnv.value())));
  }

  /**
   * Adds problems the records name by their whole path ({@code params.exec.command[0]}), each
   * placed at its value under {@code settings}, the mapping of {@code params.<kind>}.
   */
  private static void addAt(
      List<Problem> problems, Node.Mapping settings, String prefix, Problems p) {
    for (Problem q : problems) {
      String path = q.field().startsWith(prefix) ? q.field().substring(prefix.length()) : "";
      Node at = path.isEmpty() ? settings : Problems.locate(settings, path);
      // A duration is shown as written (5m), not as the record holds it (PT5M).
      Problem shown =
          q.value() instanceof Duration && at instanceof Node.Scalar s
              ? new Problem(q.field(), s.text(), q.message())
              : q;
      p.add(shown, at);
    }
  }

  /** A list of single values as text; absent is empty. */
  private static List<String> texts(Node.Mapping m, String key, String field, Problems p) {
    Node n = m.get(key);
    List<String> out = new ArrayList<>();
    if (n == null) {
      return out;
    }
    if (!(n instanceof Node.Sequence s)) {
      p.add(field, n, n.plain(), "must be a list, e.g. [python3, agent.py]");
      return out;
    }
    for (int i = 0; i < s.items().size(); i++) {
      Node item = s.items().get(i);
      if (item instanceof Node.Scalar sc && sc.value() != null) {
        out.add(sc.text());
      } else {
        p.add(field + "[" + i + "]", item, item.plain(), "must be a single value");
      }
    }
    return out;
  }

  private static boolean bool(Node.Mapping m, String key, String field, Problems p) {
    Node n = m.get(key);
    if (n == null) {
      return false;
    }
    if (n instanceof Node.Scalar s && s.value() instanceof Boolean b) {
      return b;
    }
    p.add(field, n, n.plain(), "must be true or false");
    return false;
  }
}
