package dev.carillon.schedctl;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.carillon.client.model.ConfigChange;
import dev.carillon.client.model.ConfigEntry;
import dev.carillon.client.model.ConfigKeyView;
import dev.carillon.client.model.ConfigView;
import dev.carillon.client.model.RejectedRecord;
import dev.carillon.kafka.Topics;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code schedctl config get|set|unset} on the compacted configuration topic. */
@Command(
    mixinStandardHelpOptions = true,
    name = "config",
    description = {
      "Read and change live configuration on the compacted " + Topics.CONFIG + " topic.",
      "Keys: retry/default, retry/<task-id>, ratelimit/global. Values are JSON, validated first."
    },
    subcommands = {ConfigCommand.Get.class, ConfigCommand.Set.class, ConfigCommand.Unset.class})
final class ConfigCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Schedctl.BAD_INPUT;
  }

  /** One key's current value, for {@code -o json}; {@code value} is null when not set. */
  record Current(
      String key, Object value, boolean valid, List<String> problems, Long offset, Instant at) {}

  private static ConfigTopic topic(Session session) {
    return new ConfigTopic(
        session.kafka(), Topics.CONFIG, session.timeout(), session.actor(), session.configSigner());
  }

  private static Object jsonOrText(String value) {
    try {
      return Output.JSON.readTree(value);
    } catch (JsonProcessingException e) {
      return value;
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "get",
      description = "Print the current value of KEY, or of every key when KEY is omitted.")
  static final class Get implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "KEY", arity = "0..1")
    String key;

    Get(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (session.remote()) {
        return remoteGet();
      }
      if (key != null) {
        List<String> problems = ConfigValues.checkKey(key);
        if (!problems.isEmpty()) {
          throw CliException.badInput(problems);
        }
      }
      Map<String, ConfigTopic.Entry> all = topic(session).readAll();
      List<Current> shown = new ArrayList<>();
      if (key != null) {
        ConfigTopic.Entry e = all.get(key);
        shown.add(current(key, e == null || e.value() == null ? null : e));
      } else {
        for (ConfigTopic.Entry e : ConfigTopic.live(all)) {
          shown.add(current(e.key(), e));
        }
      }
      Output out = session.output();
      if (out.json()) {
        out.printJson(key != null ? shown.get(0) : shown);
        return Schedctl.OK;
      }
      if (key != null && shown.get(0).value() == null) {
        out.line(key + " is not set (the services' built-in default applies)");
        return Schedctl.OK;
      }
      List<List<String>> rows = new ArrayList<>();
      for (Current c : shown) {
        rows.add(
            List.of(
                c.key(),
                c.value().toString(),
                c.valid() ? "" : "INVALID: " + String.join("; ", c.problems()),
                Long.toString(c.offset())));
      }
      out.table(List.of("KEY", "VALUE", "NOTE", "OFFSET"), rows);
      return Schedctl.OK;
    }

    /**
     * Through the API: the value in force (the last record the retry service accepts) and, apart,
     * the records it refuses.
     */
    private int remoteGet() {
      Output out = session.output();
      List<ConfigEntry> entries;
      List<RejectedRecord> rejected;
      if (key != null) {
        ConfigKeyView v = session.api().config(key);
        entries = v.inForce() == null ? List.of() : List.of(v.inForce());
        rejected = v.rejected();
        if (out.json()) {
          out.printJson(v);
          return Schedctl.OK;
        }
      } else {
        ConfigView v = session.api().config();
        entries = v.entries();
        rejected = v.rejected();
        if (out.json()) {
          out.printJson(v);
          return Schedctl.OK;
        }
      }
      if (key != null && entries.isEmpty()) {
        out.line(key + " is not set (the services' built-in default applies)");
      } else {
        out.table(
            List.of("KEY", "VALUE IN FORCE", "OFFSET", "SET BY", "AT"),
            entries.stream()
                .map(
                    e ->
                        List.of(
                            e.key(),
                            String.valueOf(e.value()),
                            Long.toString(e.offset()),
                            e.actor() == null ? "" : e.actor(),
                            String.valueOf(e.at())))
                .toList());
      }
      if (!rejected.isEmpty()) {
        out.line("");
        out.line("Refused by the retry service (the value before each stays in force):");
        out.table(
            List.of("KEY", "OFFSET", "VALUE", "WHY", "SET BY"),
            rejected.stream()
                .map(
                    r ->
                        List.of(
                            r.key(),
                            Long.toString(r.offset()),
                            Output.abbreviate(String.valueOf(r.value()), 80),
                            String.join("; ", r.problems()),
                            r.actor() == null ? "" : r.actor()))
                .toList());
      }
      return Schedctl.OK;
    }

    private static Current current(String key, ConfigTopic.Entry e) {
      if (e == null) {
        return new Current(key, null, true, List.of(), null, null);
      }
      // A value someone sent past this validator is shown with why the services refuse it.
      ConfigValues.Checked c = ConfigValues.check(key, e.value());
      Object value = jsonOrText(e.value());
      return new Current(key, value, c.valid(), c.problems(), e.offset(), e.timestamp());
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "set",
      description = "Validate VALUE (JSON) for KEY and publish it.")
  static final class Set implements Callable<Integer> {
    private final Session session;

    @Parameters(index = "0", paramLabel = "KEY")
    String key;

    @Parameters(
        index = "1",
        paramLabel = "VALUE",
        description = "JSON, e.g. '{\"policy\":\"NONE\"}'")
    String value;

    Set(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (session.remote()) {
        ConfigChange c = session.api().setConfig(key, value);
        Output out = session.output();
        if (out.json()) {
          out.printJson(c);
        } else {
          out.line(c.key() + " = " + c.value() + " (offset " + c.offset() + ")");
        }
        return Schedctl.OK;
      }
      ConfigValues.Checked checked = ConfigValues.check(key, value);
      if (!checked.valid()) {
        List<String> lines = new ArrayList<>(checked.problems());
        lines.add("schedctl: nothing sent");
        throw CliException.badInput(lines);
      }
      long offset = topic(session).put(key, checked.canonicalJson());
      Output out = session.output();
      if (out.json()) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("key", key);
        r.put("value", jsonOrText(checked.canonicalJson()));
        r.put("offset", offset);
        out.printJson(r);
      } else {
        out.line(key + " = " + checked.canonicalJson() + " (offset " + offset + ")");
      }
      return Schedctl.OK;
    }
  }

  @Command(
      mixinStandardHelpOptions = true,
      name = "unset",
      description = "Remove KEY (a tombstone); the services fall back to their defaults.")
  static final class Unset implements Callable<Integer> {
    private final Session session;

    @Parameters(paramLabel = "KEY")
    String key;

    Unset(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      if (session.remote()) {
        ConfigChange c = session.api().unsetConfig(key);
        Output out = session.output();
        if (out.json()) {
          out.printJson(c);
        } else {
          out.line(c.key() + " unset (tombstone at offset " + c.offset() + ")");
        }
        return Schedctl.OK;
      }
      List<String> problems = ConfigValues.checkKey(key);
      if (!problems.isEmpty()) {
        throw CliException.badInput(problems);
      }
      long offset = topic(session).put(key, null);
      Output out = session.output();
      if (out.json()) {
        out.printJson(Map.of("key", key, "unset", true, "offset", offset));
      } else {
        out.line(key + " unset (tombstone at offset " + offset + ")");
      }
      return Schedctl.OK;
    }
  }
}
