package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.carillon.model.retry.DelayedRetry;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.AtTrigger;
import dev.carillon.model.task.ConditionTrigger;
import dev.carillon.model.task.CronTrigger;
import dev.carillon.model.task.DependencyTrigger;
import dev.carillon.model.task.EventKey;
import dev.carillon.model.task.EventTrigger;
import dev.carillon.model.task.OverlapPolicy;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.model.task.TriggerKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Task specs read from YAML and JSON: every problem once, with line, column, task, field and value.
 * The cases of the former {@code TaskFile} and of the text-reading half of the former {@code
 * TaskDefinition.Builder} keep their expectations here; the lines gained a position.
 */
class SpecReaderTest {
  static final String EXAMPLE =
      """
      tasks:
        - id: daily-digest
          handler: digest
          schedule: { cron: "0 0 8 * * ?", zone: Asia/Shanghai, window: DAILY }
          overlap: SKIP
          catchup: 1h
          timeout: 20m
          retry: { policy: DELAYED, delays: [5m, 15m, 30m], maxRetries: 3 }
          params: { channel: "#news" }
      """;

  private static List<String> lines(String yaml) {
    return lines(yaml, Format.YAML);
  }

  private static List<String> lines(String text, Format format) {
    String source = format == Format.YAML ? "tasks.yaml" : "tasks.json";
    try {
      SpecReader.read(text, format, source);
    } catch (InvalidSpecException e) {
      return e.problems().stream().map(SpecProblem::text).toList();
    }
    throw new AssertionError("expected problems in\n" + text);
  }

  private static String task(String id, String extra) {
    return "tasks:\n  - id: "
        + id
        + "\n    handler: noop\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n"
        + extra;
  }

  private static TaskDefinition one(String yaml) {
    List<TaskDefinition> defs = SpecReader.read(yaml, Format.YAML, "tasks.yaml");
    assertThat(defs).hasSize(1);
    return defs.get(0);
  }

  @Test
  void the_documented_example_reads_into_one_complete_definition() {
    TaskDefinition d = one(EXAMPLE);
    assertThat(d.id()).isEqualTo("daily-digest");
    assertThat(d.handler()).isEqualTo("digest");
    assertThat(d.trigger())
        .isInstanceOfSatisfying(
            CronTrigger.class,
            c -> {
              assertThat(c.cron()).isEqualTo("0 0 8 * * ?");
              assertThat(c.zone()).isEqualTo(ZoneId.of("Asia/Shanghai"));
              assertThat(c.window()).isEqualTo(WindowKind.DAILY);
            });
    assertThat(d.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(d.catchup()).isEqualTo(Duration.ofHours(1));
    assertThat(d.timeout()).isEqualTo(Duration.ofMinutes(20));
    assertThat(d.retry())
        .isEqualTo(
            new DelayedRetry(
                List.of(Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30)), 3));
    assertThat(d.paramsJson()).isEqualTo("{\"channel\":\"#news\"}");
  }

  @Test
  void unset_fields_take_the_documented_defaults() {
    TaskDefinition d = one(task("t", ""));
    assertThat(d.window()).isEqualTo(WindowKind.DAILY);
    assertThat(d.overlap()).isEqualTo(OverlapPolicy.SKIP);
    assertThat(d.catchup()).isEqualTo(TaskDefinition.DEFAULT_CATCHUP);
    assertThat(d.timeout()).isEqualTo(TaskDefinition.DEFAULT_TIMEOUT);
    assertThat(d.retry().kind()).isEqualTo("NONE");
    assertThat(d.paramsJson()).isEqualTo("{}");
    assertThat(d.paused()).isFalse();
    assertThat(d.version()).isEqualTo(1);
    assertThat(d.queue()).isEqualTo(TaskDefinition.DEFAULT_QUEUE);
  }

  @Test
  void a_queue_is_read_and_a_bad_one_is_named_with_its_value() {
    assertThat(one(task("t", "    queue: gpu\n")).queue()).isEqualTo("gpu");
    assertThat(lines(task("t", "    queue: GPU pool\n")))
        .singleElement()
        .asString()
        .contains("queue")
        .contains("'GPU pool'")
        .contains("must match [a-z0-9][a-z0-9._-]{0,63}");
    assertThat(lines(task("t", "    queue: [a, b]\n")))
        .singleElement()
        .asString()
        .contains("queue")
        .contains("must be a single value");
  }

  @Test
  void iso_and_short_durations_are_both_accepted() {
    TaskDefinition d = one(task("t", "    catchup: PT5M\n    timeout: 1h30m\n"));
    assertThat(d.catchup()).isEqualTo(Duration.ofMinutes(5));
    assertThat(d.timeout()).isEqualTo(Duration.ofMinutes(90));
  }

  @Test
  void every_trigger_kind_reads_into_its_own_record() {
    List<TaskDefinition> defs =
        SpecReader.read(
            """
            tasks:
              - id: publish
                handler: noop
                after: [daily-digest, news]
                schedule: { window: HOURLY }
              - id: on-order
                handler: noop
                event: { topic: orders, key: "json:orderId", coalesce: 30s, ratePerSecond: 100 }
              - id: when-ready
                handler: noop
                schedule: { zone: Europe/Berlin, window: HOURLY }
                condition: { type: file-ready, every: 5m, debounce: 2, params: { path: /data/x } }
              - id: single
                handler: noop
                after: publish
            """,
            Format.YAML,
            "tasks.yaml");
    assertThat(defs.get(0).trigger())
        .isEqualTo(
            new DependencyTrigger(
                List.of("daily-digest", "news"), WindowKind.HOURLY, ZoneOffset.UTC));
    assertThat(defs.get(1).trigger())
        .isEqualTo(
            new EventTrigger(
                "orders",
                EventKey.parse("event.key", "json:orderId"),
                Duration.ofSeconds(30),
                100,
                WindowKind.DAILY,
                ZoneOffset.UTC));
    assertThat(defs.get(2).trigger())
        .isEqualTo(
            new ConditionTrigger(
                "file-ready",
                Duration.ofMinutes(5),
                2,
                "{\"path\":\"/data/x\"}",
                WindowKind.HOURLY,
                ZoneId.of("Europe/Berlin")));
    assertThat(defs.get(3).upstreams()).containsExactly("publish");
  }

  @Test
  void a_one_shot_reads_its_instant_with_its_offset_and_defaults_to_an_every_fire_window_in_utc() {
    List<TaskDefinition> defs =
        SpecReader.read(
            """
            tasks:
              - id: remind-u42
                handler: digest
                at: 2026-12-24T09:00:00+01:00
              - id: remind-u43
                handler: digest
                at: "2026-12-24T08:00:00Z"
                schedule: { zone: Europe/Berlin }
            """,
            Format.YAML,
            "tasks.yaml");

    assertThat(defs.get(0).trigger())
        .isEqualTo(
            new AtTrigger(
                Instant.parse("2026-12-24T08:00:00Z"), WindowKind.EVERY_FIRE, ZoneOffset.UTC));
    assertThat(defs.get(1).trigger())
        .isEqualTo(
            new AtTrigger(
                Instant.parse("2026-12-24T08:00:00Z"),
                WindowKind.EVERY_FIRE,
                ZoneId.of("Europe/Berlin")));
    assertThat(
            SpecReader.read(
                "{\"tasks\":[{\"id\":\"r\",\"handler\":\"noop\",\"at\":\"2026-12-24T08:00:00Z\"}]}",
                Format.JSON,
                "tasks.json"))
        .singleElement()
        .satisfies(d -> assertThat(d.triggerKind()).isEqualTo(TriggerKind.AT));
  }

  @Test
  void a_one_shot_without_an_offset_with_a_fraction_out_of_range_or_beside_a_cron_is_refused() {
    assertThat(
            lines(
                """
                tasks:
                  - id: local
                    handler: noop
                    at: "2026-12-24T08:00:00"
                  - id: fraction
                    handler: noop
                    at: "2026-12-24T08:00:00.5Z"
                  - id: ancient
                    handler: noop
                    at: "1999-12-31T23:59:59Z"
                  - id: both
                    handler: noop
                    at: "2026-12-24T08:00:00Z"
                    schedule: { cron: "0 0 8 * * ?", zone: UTC }
                  - id: shapeless
                    handler: noop
                    at: [1, 2]
                """))
        .containsExactly(
            "tasks.yaml:4:9: task 'local': at='2026-12-24T08:00:00': must be an instant with its"
                + " offset, e.g. 2026-12-24T08:00:00Z or 2026-12-24T09:00:00+01:00",
            "tasks.yaml:7:9: task 'fraction': at='2026-12-24T08:00:00.5Z': must be a whole second"
                + " (no fraction)",
            "tasks.yaml:10:9: task 'ancient': at='1999-12-31T23:59:59Z': must be from"
                + " 2000-01-01T00:00:00Z to before 2100-01-01T00:00:00Z",
            "tasks.yaml:11:5: task 'both': trigger='schedule.cron + at': a task has exactly one"
                + " trigger: schedule.cron, at, after, event or condition",
            "tasks.yaml:17:9: task 'shapeless': at='[1, 2]': must be an instant such as"
                + " 2026-12-24T08:00:00Z");
  }

  @Test
  void every_problem_of_every_task_is_reported_with_position_task_field_and_value() {
    String yaml =
        """
        tasks:
          - id: bad-cron
            handler: noop
            schedule: { cron: "61 * * * * ?", zone: UTC }
          - id: bad-zone
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: Mars/Olympus }
          - id: Bad_ID!
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
          - id: bad-durations
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
            catchup: PT-5M
            timeout: 400d
          - id: bad-retry
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: UTC }
            retry: { policy: SOMETIMES }
        """;
    assertThat(lines(yaml))
        .hasSize(6)
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("tasks.yaml:4:23: task 'bad-cron': schedule.cron='61 * * * * ?': "))
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "tasks.yaml:7:44: task 'bad-zone': schedule.zone='Mars/Olympus': is not"
                            + " an IANA time zone"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("tasks.yaml:8:9: task 'Bad_ID!': id='Bad_ID!': must match"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:14:14: task 'bad-durations': catchup='PT-5M': must be between"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:15:14: task 'bad-durations': timeout='400d': must be between"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:19:22: task 'bad-retry': retry.policy='SOMETIMES': must be"));
  }

  @Test
  void every_problem_of_one_task_is_reported_at_once() {
    String yaml =
        """
        tasks:
          - id: BAD
            handler: ""
            schedule: { cron: "0 0 8 * * ?", zone: Mars/Olympus, window: FORTNIGHTLY }
            overlap: SOMETIMES
            catchup: soon
            timeout: -5m
            retry: { policy: SOMETIMES }
        """;
    assertThat(lines(yaml))
        .containsExactly(
            "tasks.yaml:2:9: task 'BAD': id='BAD': must match [a-z0-9][a-z0-9._-]{0,63}",
            "tasks.yaml:3:14: task 'BAD': handler='': must match [a-z0-9][a-z0-9._-]{0,127}",
            "tasks.yaml:4:44: task 'BAD': schedule.zone='Mars/Olympus': is not an IANA time zone",
            "tasks.yaml:4:66: task 'BAD': schedule.window='FORTNIGHTLY': must be DAILY, HOURLY,"
                + " WEEKLY, MONTHLY or EVERY_FIRE",
            "tasks.yaml:5:14: task 'BAD': overlap='SOMETIMES': must be SKIP or ALLOW",
            "tasks.yaml:6:14: task 'BAD': catchup='soon': not a duration (use ISO-8601 like PT5M"
                + " or 500ms, 30s, 5m, 1h, 2d)",
            "tasks.yaml:7:14: task 'BAD': timeout='-5m': not a duration (use ISO-8601 like PT5M"
                + " or 500ms, 30s, 5m, 1h, 2d)",
            "tasks.yaml:8:22: task 'BAD': retry.policy='SOMETIMES': must be one of NONE,"
                + " IMMEDIATE, DELAYED, EXPONENTIAL, WINDOW (any case)");
  }

  @Test
  void a_bare_number_is_not_a_duration_and_an_overflowing_one_is_refused_not_thrown() {
    assertThat(lines(task("t", "    timeout: 300\n")))
        .containsExactly(
            "tasks.yaml:5:14: task 't': timeout='300': a number needs a unit, e.g. 5m, 1h or PT5M");
    assertThat(lines(task("t", "    catchup: 99999999999999999d\n")))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith("tasks.yaml:5:14: task 't': catchup='99999999999999999d': "));
    assertThat(lines(task("t", "    retry: { policy: DELAYED, delays: [9999999999999999d] }\n")))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("tasks.yaml:5:40: task 't': retry.delays[0]="));
  }

  @Test
  void unknown_keys_are_named_at_every_level_at_the_key() {
    String yaml =
        """
        taks: []
        tasks:
          - id: t
            handler: noop
            timout: 5m
            paused: true
            schedule: { cron: "0 0 8 * * ?", zone: UTC, windw: DAILY }
            retry: { policy: IMMEDIATE, delays: [5m] }
            event: { topic: orders, colour: red }
        """;
    assertThat(lines(yaml))
        .anySatisfy(
            l -> assertThat(l).isEqualTo("tasks.yaml:1:1: taks='[]': unknown key (known: tasks)"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:5:5: task 't': timout='5m': unknown key (known: after,"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "tasks.yaml:6:5: task 't': paused='true': is not a file key; use 'schedctl"
                            + " pause' and 'schedctl resume'"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "tasks.yaml:7:49: task 't': schedule.windw='DAILY': unknown key (known:"
                            + " cron, window, zone)"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:8:33: task 't': retry.delays='[5m]': not used by policy"
                            + " IMMEDIATE"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .isEqualTo(
                        "tasks.yaml:9:29: task 't': event.colour='red': unknown key (known:"
                            + " coalesce, key, ratePerSecond, topic)"));
  }

  @Test
  void a_duplicate_id_names_both_positions() {
    String yaml = task("dup", "") + task("dup", "").replace("tasks:\n", "");
    assertThat(lines(yaml))
        .containsExactly(
            "tasks.yaml:5:9: task 'dup': id='dup': appears more than once in the file (tasks[0]"
                + " and tasks[1])");
  }

  @Test
  void text_that_does_not_parse_is_reported_with_line_and_column() {
    assertThat(lines("tasks:\n  - id: a\n    handler: [unclosed\n"))
        .singleElement()
        .satisfies(l -> assertThat(l).matches("tasks\\.yaml:\\d+:\\d+: is not valid YAML: .+"));
    assertThat(lines("tasks:\n  - id: a\n    id: b\n"))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("tasks.yaml:3:").contains("Duplicate field 'id'"));
    assertThat(lines("{\"tasks\": [{\"id\": \"t\"} {}]}", Format.JSON))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("tasks.json:1:24: is not valid JSON: "));
  }

  @Test
  void a_second_yaml_document_or_json_value_is_refused_rather_than_ignored() {
    assertThat(lines(task("a", "") + "---\n" + task("b", "")))
        .containsExactly(
            "tasks.yaml:6:1: is not valid YAML: a second document or more text after the first"
                + " value (found a mapping)");
    assertThat(lines("{\"tasks\": []} {\"tasks\": []}", Format.JSON))
        .containsExactly(
            "tasks.json:1:15: is not valid JSON: text after the end of the value (found a"
                + " mapping)");
  }

  @Test
  void the_shape_of_the_file_is_checked() {
    assertThat(lines("")).containsExactly("tasks.yaml: is empty; expected 'tasks:' and a list");
    assertThat(lines("- a\n- b\n"))
        .containsExactly("tasks.yaml:1:1: must be a mapping with the key 'tasks', not a list");
    assertThat(lines("tasks: nope\n"))
        .containsExactly("tasks.yaml:1:8: tasks='nope': must be a list, not 'nope'");
    assertThat(lines("tasks:\n  - just-a-string\n"))
        .containsExactly("tasks.yaml:2:5: tasks[0]: must be a mapping (id, handler, schedule ...)");
    assertThat(lines("tasks:\n  - handler: noop\n    schedule: 0 0 8 * * ?\n"))
        .as("a schedule that is not a mapping is one problem, not also 'cron is required'")
        .containsExactly(
            "tasks.yaml:2:5: tasks[0]: id=<missing>: must match [a-z0-9][a-z0-9._-]{0,63}",
            "tasks.yaml:3:15: tasks[0]: schedule='0 0 8 * * ?': must be a mapping such as {cron:"
                + " \"0 0 8 * * ?\", zone: UTC, window: DAILY}");
  }

  @Test
  void a_value_that_cannot_be_read_is_one_problem_and_is_not_checked_again() {
    assertThat(lines(task("t", "    handler2: x\n").replace("handler: noop", "handler: [a, b]")))
        .containsExactly(
            "tasks.yaml:3:14: task 't': handler='[a, b]': must be a single value, not a list",
            "tasks.yaml:5:5: task 't': handler2='x': unknown key (known: after, at, catchup,"
                + " condition, event, handler, id, overlap, params, queue, retry, schedule, timeout)");
    assertThat(lines("tasks:\n  - id: t\n    handler: noop\n    event: nope\n"))
        .as("an event that is not a mapping is still the task's one trigger: no cron is asked for")
        .containsExactly("tasks.yaml:4:12: task 't': event='nope': must be a mapping");
    assertThat(lines("tasks:\n  - id: t\n    handler: noop\n    after: [a, {b: 1}]\n"))
        .containsExactly("tasks.yaml:4:16: task 't': after[1]='{b=1}': must be a task id");
    assertThat(lines(task("t", "    timeout: [5m]\n    retry: DELAYED\n    params: [1]\n")))
        .containsExactly(
            "tasks.yaml:5:14: task 't': timeout='[5m]': must be a duration such as 5m, 1h or PT5M",
            "tasks.yaml:6:12: task 't': retry='DELAYED': must be a mapping such as {policy:"
                + " DELAYED, delays: [5m, 15m], maxRetries: 2}",
            "tasks.yaml:7:13: task 't': params='[1]': must be a mapping (a JSON object) or absent");
  }

  @Test
  void a_task_without_a_trigger_needs_a_cron_and_a_zone() {
    assertThat(lines("tasks:\n  - id: t\n    handler: noop\n"))
        .containsExactly(
            "tasks.yaml:2:5: task 't': schedule.zone=<missing>: is required (an IANA zone such as"
                + " Asia/Shanghai)",
            "tasks.yaml:2:5: task 't': schedule.cron=<missing>: is required");
  }

  @Test
  void every_trigger_problem_is_named_and_a_second_trigger_is_refused() {
    assertThat(
            lines(
                """
                tasks:
                  - id: t
                    handler: noop
                    after: [t, u, u]
                    event: {topic: "bad topic!", key: "json:", ratePerSecond: -1}
                """))
        .containsExactly(
            "tasks.yaml:2:5: task 't': trigger='after + event': a task has exactly one trigger:"
                + " schedule.cron, at, after, event or condition",
            "tasks.yaml:4:13: task 't': after[0]='t': a task cannot depend on itself",
            "tasks.yaml:4:19: task 't': after[2]='u': is listed twice",
            "tasks.yaml:5:20: task 't': event.topic='bad topic!': must match [a-zA-Z0-9._-]{1,249}",
            "tasks.yaml:5:39: task 't': event.key='json:': must be 'key', 'json:<field>' or"
                + " 'bucket:<duration>' (e.g. bucket:5m)",
            "tasks.yaml:5:63: task 't': event.ratePerSecond='-1': must be a positive number");
    assertThat(
            lines(
                "tasks:\n  - id: t\n    handler: noop\n"
                    + "    condition: {type: x, every: 0s, debounce: 0}\n"))
        .containsExactly(
            "tasks.yaml:2:5: task 't': schedule.zone=<missing>: is required (an IANA zone such as"
                + " Asia/Shanghai)",
            "tasks.yaml:4:33: task 't': condition.every='0s': must be between 1s and 24h",
            "tasks.yaml:4:47: task 't': condition.debounce='0': must be a whole number from 1 to"
                + " 100");
  }

  @Test
  void a_ten_megabyte_params_blob_is_refused_by_size_naming_the_task_and_field() {
    String blob = "x".repeat(10 * 1024 * 1024);
    String flow =
        task("ok", "")
            + task("big", "    params: { blob: \"" + blob + "\" }\n").replace("tasks:\n", "");
    assertThat(lines(flow))
        .singleElement()
        .satisfies(
            l ->
                assertThat(l)
                    .startsWith(
                        "tasks.yaml:8:5: task 'big': params='<10485786 bytes>': makes the file")
                    .contains("params at most 65536 bytes per task"));
    String block =
        task("big", "    params:\n      blob: |\n        " + blob + "\n    timeout: 5m\n");
    assertThat(lines(block))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("tasks.yaml:5:5: task 'big': params='<10485"));
    assertThat(lines("{\"tasks\":[{\"id\":\"big\",\"params\":\"" + blob + "\"}]}", Format.JSON))
        .singleElement()
        .satisfies(l -> assertThat(l).startsWith("tasks.json: is 10485").contains("at most"));
  }

  @Test
  void params_over_the_limit_but_under_the_file_cap_are_refused_by_the_model_rule() {
    String blob = "x".repeat(100_000);
    assertThat(lines(task("big", "    params: { blob: \"" + blob + "\" }\n")))
        .containsExactly(
            "tasks.yaml:5:13: task 'big': params='<100011 bytes>': is larger than 65536 bytes;"
                + " keep large inputs in an artifact store");
  }

  @Test
  void params_are_stored_as_the_json_jackson_writes_for_the_same_tree() throws Exception {
    String params =
        "{ text: \"日本語 ✓\", n: 7, big: 12345678901234, huge: 123456789012345678901234567890,"
            + " x: 1.5, e: 1e3, t: true, z: null, list: [1, \"two\", [3]], nested: { a: { b: c } } }";
    String expected =
        new ObjectMapper().writeValueAsString(new YAMLMapper().readTree("p: " + params).get("p"));
    assertThat(one(task("t", "    params: " + params + "\n")).paramsJson()).isEqualTo(expected);
  }

  @Test
  void json_reads_to_the_same_definitions_and_the_same_problems_as_yaml() {
    String json =
        """
        {"tasks": [
          {"id": "daily-digest", "handler": "digest",
           "schedule": {"cron": "0 0 8 * * ?", "zone": "Asia/Shanghai", "window": "DAILY"},
           "overlap": "SKIP", "catchup": "1h", "timeout": "20m",
           "retry": {"policy": "DELAYED", "delays": ["5m", "15m", "30m"], "maxRetries": 3},
           "params": {"channel": "#news"}}
        ]}
        """;
    assertThat(SpecReader.read(json, Format.JSON, "tasks.json")).containsExactly(one(EXAMPLE));

    String badYaml =
        """
        tasks:
          - id: t
            handler: noop
            schedule: { cron: "0 0 8 * * ?", zone: Mars/Olympus }
            timeout: 300
            retry: { policy: DELAYED, delays: [5m, soon] }
            colour: red
        """;
    String badJson =
        """
        {"tasks": [{"id": "t", "handler": "noop",
          "schedule": {"cron": "0 0 8 * * ?", "zone": "Mars/Olympus"},
          "timeout": 300,
          "retry": {"policy": "DELAYED", "delays": ["5m", "soon"]},
          "colour": "red"}]}
        """;
    assertThat(withoutPosition(lines(badJson, Format.JSON)))
        .containsExactlyInAnyOrderElementsOf(withoutPosition(lines(badYaml)))
        .hasSize(4);
  }

  private static List<String> withoutPosition(List<String> lines) {
    return lines.stream().map(l -> l.replaceFirst("^tasks\\.(yaml|json):\\d+:\\d+: ", "")).toList();
  }

  @Test
  void one_task_is_read_from_a_json_object_with_the_same_messages() {
    TaskDefinition d =
        SpecReader.readOne(
            "{\"id\": \"t\", \"handler\": \"noop\", \"after\": [\"a\"]}", Format.JSON, "<request>");
    assertThat(d.upstreams()).containsExactly("a");
    assertThatThrownBy(
            () ->
                SpecReader.readOne(
                    "{\"id\": \"t\", \"handler\": \"noop\",\n \"after\": [\"a\"], \"timout\": \"5m\"}",
                    Format.JSON,
                    "<request>"))
        .isInstanceOfSatisfying(
            InvalidSpecException.class,
            e ->
                assertThat(e.problems())
                    .singleElement()
                    .satisfies(
                        p -> {
                          assertThat(p.line()).isEqualTo(2);
                          assertThat(p.column()).isEqualTo(18);
                          assertThat(p.task()).isEqualTo("task 't'");
                          assertThat(p.field()).isEqualTo("timout");
                          assertThat(p.value()).isEqualTo("5m");
                          assertThat(p.message()).startsWith("unknown key (known: after,");
                        }));
    assertThatThrownBy(() -> SpecReader.readOne("[1]", Format.JSON, "<request>"))
        .hasMessage(
            "<request>:1:1: must be a task mapping (id, handler, schedule ...), not a list");
  }

  @Test
  void the_local_stack_examples_read() throws Exception {
    Path examples = Path.of("..", "examples", "tasks.yaml");
    assertThat(SpecReader.read(Files.readString(examples), Format.YAML, examples.toString()))
        .extracting(TaskDefinition::id)
        .containsExactly("news-digest", "flaky-report", "slow-crawler", "file-summary");
  }
}
