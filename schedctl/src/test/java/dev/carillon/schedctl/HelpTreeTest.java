package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command of the whole tree, found by walking picocli's model (so a command added later is
 * covered without touching this test), answers {@code --help} with exit 0 and its usage.
 */
class HelpTreeTest {
  @Test
  void every_command_in_the_tree_answers_help_with_exit_0() {
    List<List<String>> paths = new ArrayList<>();
    Schedctl root = new Schedctl();
    Session session =
        new Session(
            root, System.out, System.err, Map.of(), java.time.Clock.systemUTC(), Sleeper.system());
    walk(new CommandLine(root, new SessionFactory(session)), new ArrayList<>(), paths);
    assertThat(paths).hasSizeGreaterThan(20);
    List<String> failed = new ArrayList<>();
    for (List<String> path : paths) {
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      Cli.Result r = Cli.run(Map.of(), args.toArray(String[]::new));
      String usage = "Usage: schedctl" + (path.isEmpty() ? "" : " " + String.join(" ", path));
      if (r.code() != 0 || !r.out().contains(usage)) {
        failed.add(String.join(" ", args) + " -> " + r);
      }
    }
    assertThat(failed).isEmpty();
  }

  @Test
  void completion_prints_a_bash_script_naming_the_commands() {
    Cli.Result r = Cli.run(Map.of(), "completion", "bash");
    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("complete -F").contains("retry-plan").contains("describe");
    assertThat(Cli.run(Map.of(), "completion", "fish").code()).isEqualTo(Schedctl.BAD_INPUT);
  }

  @Test
  void token_new_prints_a_token_and_its_hashed_line_without_a_server() {
    Cli.Result r = Cli.run(Map.of(), "token", "new", "--principal", "alice", "--role", "operator");
    assertThat(r.code()).as(r.toString()).isZero();
    String token = r.out().lines().filter(l -> l.startsWith("token:")).findFirst().orElseThrow();
    token = token.substring("token:".length()).strip();
    assertThat(token).startsWith("crl_");
    assertThat(r.out())
        .contains("alice operator " + dev.carillon.auth.Tokens.hash(token))
        .doesNotContain("alice operator " + token);
    Cli.Result bad = Cli.run(Map.of(), "token", "new", "--principal", "alice", "--role", "root");
    assertThat(bad.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(bad.err()).contains("role 'root' must be one of viewer, operator, admin");
  }

  /** Builds commands as schedctl does: those that take a session get one. */
  private record SessionFactory(Session session) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      for (java.lang.reflect.Constructor<?> c : cls.getDeclaredConstructors()) {
        if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == Session.class) {
          c.setAccessible(true);
          return cls.cast(c.newInstance(session));
        }
      }
      return CommandLine.defaultFactory().create(cls);
    }
  }

  private static void walk(CommandLine c, List<String> path, List<List<String>> out) {
    out.add(List.copyOf(path));
    for (Map.Entry<String, CommandLine> e : c.getSubcommands().entrySet()) {
      // Aliases repeat a command under another name; the help command has no --help of its own.
      if (!e.getKey().equals(e.getValue().getCommandName())
          || e.getValue().getCommand() instanceof CommandLine.HelpCommand) {
        continue;
      }
      List<String> next = new ArrayList<>(path);
      next.add(e.getKey());
      walk(e.getValue(), next, out);
    }
  }
}
