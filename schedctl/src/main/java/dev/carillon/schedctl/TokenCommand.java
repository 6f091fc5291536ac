package dev.carillon.schedctl;

import dev.carillon.auth.Principal;
import dev.carillon.auth.Role;
import dev.carillon.auth.TokenFile;
import dev.carillon.auth.Tokens;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code schedctl token new}: mints an API token and its tokens-file line; needs no server. */
@Command(
    mixinStandardHelpOptions = true,
    name = "token",
    description = "Mint API tokens (no server needed).",
    subcommands = TokenCommand.New.class)
final class TokenCommand extends GroupCommand {

  @Command(
      mixinStandardHelpOptions = true,
      name = "new",
      description = {
        "Print a new token and the line that grants it, for the API's tokens file.",
        "The token goes to its holder (it is stored nowhere); the line, which holds only its"
            + " SHA-256, goes into the tokens file (api.tokens-file). Restart the triggers to read"
            + " it."
      })
  static final class New implements Callable<Integer> {
    private final Session session;

    @Option(
        names = "--principal",
        required = true,
        paramLabel = "NAME",
        description = "who holds it; recorded as api:NAME on every change it makes")
    String principal;

    @Option(
        names = "--role",
        required = true,
        paramLabel = "ROLE",
        description = "viewer, operator or admin")
    String role;

    New(Session session) {
      this.session = session;
    }

    @Override
    public Integer call() {
      Principal p;
      try {
        p = new Principal(principal, Role.parse(role));
      } catch (IllegalArgumentException e) {
        throw CliException.badInput("schedctl: " + e.getMessage());
      }
      String token = Tokens.mint();
      Output out = session.output();
      if (out.json()) {
        out.printJson(
            java.util.Map.of(
                "principal", p.name(),
                "role", p.role().label(),
                "token", token,
                "tokensFileLine", TokenFile.line(p, token)));
        return Schedctl.OK;
      }
      out.line("token:            " + token);
      out.line("tokens-file line: " + TokenFile.line(p, token));
      return Schedctl.OK;
    }
  }
}
