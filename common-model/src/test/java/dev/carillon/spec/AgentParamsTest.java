package dev.carillon.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.agent.ExecCommand;
import dev.carillon.model.agent.HttpEndpoint;
import dev.carillon.model.task.InvalidTaskException;
import dev.carillon.model.task.TaskDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The settings of the built-in handlers, as apply checks them and the worker reads them. */
class AgentParamsTest {
  private static String task(String handler, String params) {
    return "tasks:\n  - id: t\n    handler: "
        + handler
        + "\n    schedule: { cron: \"0 0 8 * * ?\", zone: UTC }\n    params:\n"
        + params;
  }

  private static List<String> problems(String yaml) {
    try {
      SpecReader.read(yaml, Format.YAML, "tasks.yaml");
    } catch (InvalidSpecException e) {
      return e.problems().stream().map(SpecProblem::text).toList();
    }
    throw new AssertionError("expected problems in\n" + yaml);
  }

  @Test
  void an_exec_task_reads_and_its_command_comes_back_with_defaults() {
    List<TaskDefinition> defs =
        SpecReader.read(
            task(
                "exec",
                "      exec:\n"
                    + "        command: [python3, agents/summarize.py, --top, 5]\n"
                    + "        env: { LOG_LEVEL: info }\n"
                    + "        passEnv: [OPENAI_API_KEY]\n"
                    + "      paths: [a.txt]\n"),
            Format.YAML,
            "tasks.yaml");
    ExecCommand c = AgentParams.exec("t", defs.get(0).paramsJson());
    assertThat(c.argv()).containsExactly("python3", "agents/summarize.py", "--top", "5");
    assertThat(c.shell()).isFalse();
    assertThat(c.dir()).isEmpty();
    assertThat(c.env()).isEqualTo(Map.of("LOG_LEVEL", "info"));
    assertThat(c.passEnv()).containsExactly("OPENAI_API_KEY");
    assertThat(c.grace()).isEqualTo(ExecCommand.DEFAULT_GRACE);
  }

  @Test
  void a_shell_command_runs_its_one_script_with_sh() {
    ExecCommand c =
        AgentParams.exec(
            "t", "{\"exec\":{\"command\":[\"ls | wc -l\"],\"shell\":true,\"grace\":\"2s\"}}");
    assertThat(c.argv()).containsExactly("/bin/sh", "-c", "ls | wc -l");
    assertThat(c.grace()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void every_problem_of_exec_settings_is_named_with_its_position() {
    assertThat(
            problems(
                task(
                    "exec",
                    "      exec:\n"
                        + "        command: [\"a b\", c]\n"
                        + "        shell: yes-please\n"
                        + "        env: { CARILLON_TASK_ID: x, \"1BAD\": y }\n"
                        + "        passEnv: [\"has space\"]\n"
                        + "        grace: 10m\n"
                        + "        cwd: /tmp\n")))
        .containsExactlyInAnyOrder(
            "tasks.yaml:12:9: task 't': params.exec.cwd='/tmp': unknown key (known: command, dir,"
                + " env, grace, passEnv, shell)",
            "tasks.yaml:8:16: task 't': params.exec.shell='yes-please': must be true or false",
            "tasks.yaml:9:34: task 't': params.exec.env.CARILLON_TASK_ID='CARILLON_TASK_ID':"
                + " names starting with CARILLON_ are set by the worker",
            "tasks.yaml:9:45: task 't': params.exec.env.1BAD='1BAD': must be a variable name"
                + " matching [A-Za-z_][A-Za-z0-9_]{0,127}",
            "tasks.yaml:10:19: task 't': params.exec.passEnv[0]='has space': must be a variable"
                + " name matching [A-Za-z_][A-Za-z0-9_]{0,127}",
            "tasks.yaml:11:16: task 't': params.exec.grace='10m': must be between 0s and 5m");
  }

  @Test
  void an_exec_task_needs_a_command() {
    assertThat(problems(task("exec", "      paths: [a]\n")))
        .singleElement()
        .asString()
        .contains("params.exec=<missing>: is required for handler 'exec'");
    assertThat(problems(task("exec", "      exec: { command: [] }\n")))
        .singleElement()
        .asString()
        .contains("params.exec.command='[]': must list the program and its arguments");
    assertThat(problems(task("exec", "      exec: { command: [a, b], shell: true }\n")))
        .singleElement()
        .asString()
        .contains("with shell: true, must be one script");
  }

  @Test
  void an_http_task_reads_and_its_problems_are_named() {
    HttpEndpoint e =
        AgentParams.http(
            "t",
            "{\"http\":{\"url\":\"https://agents.internal/run\",\"requestTimeout\":\"2m\","
                + "\"tokenEnv\":\"AGENT_TOKEN\"}}");
    assertThat(e.url()).isEqualTo(URI.create("https://agents.internal/run"));
    assertThat(e.requestTimeout()).contains(Duration.ofMinutes(2));
    assertThat(e.tokenEnv()).isEqualTo(Optional.of("AGENT_TOKEN"));

    assertThat(
            problems(
                task(
                    "http",
                    "      http: { url: \"ftp://x/y\", requestTimeout: 1ms, tokenEnv: \"a-b\" }\n")))
        .containsExactlyInAnyOrder(
            "tasks.yaml:6:20: task 't': params.http.url='ftp://x/y': must be an absolute http or"
                + " https URL, e.g. https://agents.internal/summarize",
            "tasks.yaml:6:49: task 't': params.http.requestTimeout='1ms': must be at least"
                + " 100ms",
            "tasks.yaml:6:64: task 't': params.http.tokenEnv='a-b': must be a variable name"
                + " matching [A-Za-z_][A-Za-z0-9_]{0,127}");
    assertThat(problems(task("http", "      http: { url: \"https://user:pw@x/y\" }\n")))
        .singleElement()
        .asString()
        .contains("params.http.url='<with user information>': must not carry credentials");
  }

  @Test
  void the_worker_reading_broken_settings_gets_every_problem_at_once() {
    assertThatThrownBy(() -> AgentParams.exec("t", "{\"exec\":{\"command\":\"python3\"}}"))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("params.exec.command")
        .hasMessageContaining("must be a list");
    assertThatThrownBy(() -> AgentParams.http("t", "{}"))
        .isInstanceOf(InvalidTaskException.class)
        .hasMessageContaining("params.http");
  }

  @Test
  void a_plugins_params_are_not_checked_as_built_in_settings() {
    List<TaskDefinition> defs =
        SpecReader.read(task("noop", "      exec: whatever\n"), Format.YAML, "tasks.yaml");
    assertThat(defs).hasSize(1);
  }
}
