package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.client.model.RunResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code schedctl run TASK}: a MANUAL instance now, through the API. */
@Command(
    mixinStandardHelpOptions = true,
    name = "run",
    description = {
      "Run a task now: a MANUAL instance, published at once (through the API).",
      "--param k=v replaces the task's param k for this run only (a shallow merge; v is read as"
          + " JSON when it is JSON, else as text). The same --idempotency-key twice answers the"
          + " same instance."
    })
final class RunCommand implements Callable<Integer> {
  private final Session session;

  @Parameters(paramLabel = "TASK")
  String task;

  @Option(
      names = {"-p", "--param"},
      paramLabel = "KEY=VALUE",
      description = "a param for this run, e.g. user=u-42 or limit=10 (repeatable)")
  List<String> params;

  @Option(
      names = "--idempotency-key",
      paramLabel = "KEY",
      description = "the same key on the same task gives the same instance")
  String idempotencyKey;

  RunCommand(Session session) {
    this.session = session;
  }

  @Override
  public Integer call() {
    Map<String, Object> override = params == null ? null : parse(params);
    RunResult r = session.api().runNow(task, override, idempotencyKey);
    Output out = session.output();
    if (out.json()) {
      out.printJson(r);
      return Schedctl.OK;
    }
    out.line(
        (r.created() ? "created" : "already existed (same idempotency key):")
            + " instance "
            + r.instance().id()
            + " of "
            + task
            + ", window "
            + r.instance().windowKey()
            + ", "
            + r.instance().status()
            + (r.published() ? ", published" : ", to be published by the dispatch sweep"));
    return Schedctl.OK;
  }

  /** {@code k=v} pairs; a value that parses as JSON (number, object, true) is taken as that. */
  static Map<String, Object> parse(List<String> pairs) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String p : pairs) {
      int eq = p.indexOf('=');
      if (eq < 1) {
        throw CliException.badInput(
            "schedctl: --param '" + p + "' must be KEY=VALUE, e.g. --param user=u-42");
      }
      String key = p.substring(0, eq);
      String value = p.substring(eq + 1);
      if (out.containsKey(key)) {
        throw CliException.badInput("schedctl: --param '" + key + "' is given twice");
      }
      out.put(key, value(value));
    }
    return out;
  }

  private static Object value(String text) {
    try {
      JsonNode n = Output.JSON.readTree(text);
      return n == null || n.isMissingNode() ? text : n;
    } catch (JsonProcessingException e) {
      return text;
    }
  }
}
