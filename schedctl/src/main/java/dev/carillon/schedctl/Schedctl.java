package dev.carillon.schedctl;

import dev.carillon.client.CarillonApiException;
import dev.carillon.client.CarillonUnreachableException;
import dev.carillon.config.ConfigException;
import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.jooq.exception.DataAccessException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code schedctl}, the operator CLI: applies task definitions, shows tasks, instances and the
 * decisions behind a window, re-runs, back-fills, pauses and cancels, and publishes live
 * configuration.
 *
 * <p>Exit codes: {@value #OK} success; {@value #UNREACHABLE} a dependency (PostgreSQL, Kafka) could
 * not be reached or failed, with a message naming it; {@value #BAD_INPUT} bad input (arguments,
 * files, values, unknown ids, state changes the instance state machine refuses), one line per
 * problem on stderr.
 *
 * <p>With {@code --server URL} (or {@code CARILLON_API_URL}) and a token in {@code
 * CARILLON_API_TOKEN}, every command the control-plane API serves goes through it, with the
 * caller's token as the actor and the API's validation. Without a server, commands reach PostgreSQL
 * and Kafka directly with the services' configuration ({@code CARILLON_DB_URL}, {@code
 * CARILLON_DB_USER}, {@code CARILLON_DB_PASSWORD[_FILE]}, {@code CARILLON_KAFKA_BOOTSTRAP}, {@code
 * CARILLON_KAFKA_PROPERTIES_*}, or {@code --config FILE}): for bootstrap, before a trigger runs. A
 * command opens only the connections it needs. Secrets are never printed.
 */
@Command(
    name = "schedctl",
    mixinStandardHelpOptions = true,
    version = "schedctl 0.1.0",
    description = "Operate Carillon: tasks, instances, windows, re-runs, backfills, live config.",
    subcommands = {
      ApplyCommand.class,
      GetCommand.class,
      DescribeCommand.class,
      WhyCommand.class,
      NextCommand.class,
      RerunCommand.class,
      BackfillCommand.class,
      PauseCommand.class,
      ResumeCommand.class,
      CancelCommand.class,
      QuarantineCommand.class,
      ConfigCommand.class,
      RetryPlanCommand.class,
      RunCommand.class,
      DeleteCommand.class,
      TokenCommand.class,
      CompletionCommand.class,
      SuggestTimeoutCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success",
      "1:the API (or PostgreSQL or Kafka) could not be reached or failed (the message names which)",
      "2:bad input: arguments, files, values, unknown ids, refused state changes, a refused token"
    })
public final class Schedctl implements Callable<Integer> {
  /** Exit code: success. */
  public static final int OK = 0;

  /** Exit code: a dependency could not be reached or failed. */
  public static final int UNREACHABLE = 1;

  /** Exit code: bad input; nothing was changed. */
  public static final int BAD_INPUT = 2;

  /** How long one dependency call may take unless {@code --timeout} says otherwise. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  @Option(
      names = {"-o", "--output"},
      scope = ScopeType.INHERIT,
      defaultValue = "table",
      paramLabel = "FORMAT",
      description = "table (default), json or yaml")
  Output.Format output;

  @Option(
      names = "--server",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "the control-plane API, e.g. http://127.0.0.1:8080 (default: $CARILLON_API_URL); the"
              + " token comes from $CARILLON_API_TOKEN. Without it, commands use PostgreSQL and"
              + " Kafka directly")
  String server;

  @Option(
      names = "--config",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description = "a properties file with db.url, kafka.bootstrap ...; the environment wins")
  Path configFile;

  @Option(
      names = "--timeout",
      scope = ScopeType.INHERIT,
      defaultValue = "10s",
      paramLabel = "DURATION",
      description = "how long to wait for the API, PostgreSQL or Kafka (1s..5m, default 10s)")
  Duration timeout;

  @Spec CommandSpec spec;

  private final Clock clock;
  private final Sleeper sleeper;

  /** A CLI reading the system clock and really sleeping. */
  public Schedctl() {
    this(Clock.systemUTC(), Sleeper.system());
  }

  /**
   * A CLI with its notion of now and of waiting given (tests).
   *
   * @param clock where {@code next}, {@code backfill} and {@code --since 24h} read now
   * @param sleeper how {@code backfill --rate} waits
   */
  public Schedctl(Clock clock, Sleeper sleeper) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /** Runs the CLI and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(new Schedctl().run(args, System.out, System.err, System.getenv()));
  }

  /**
   * Runs one command line in-process. Each call parses into fresh command objects, opens the
   * connections it needs and closes them before returning.
   *
   * @param args the arguments, e.g. {@code get instances --task daily-digest -o json}
   * @param out where results go
   * @param err where errors go, one line per problem
   * @param env the environment to read {@code CARILLON_*} settings from
   * @return the exit code: {@link #OK}, {@link #UNREACHABLE} or {@link #BAD_INPUT}
   */
  public int run(String[] args, PrintStream out, PrintStream err, Map<String, String> env) {
    Schedctl root = new Schedctl(clock, sleeper);
    Session session = new Session(root, out, err, env, clock, sleeper);
    PrintWriter outWriter =
        new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true);
    PrintWriter errWriter =
        new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
    CommandLine cmd = new CommandLine(root, new Factory(session));
    cmd.setOut(outWriter);
    cmd.setErr(errWriter);
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    cmd.registerConverter(Duration.class, Schedctl::duration);
    cmd.setParameterExceptionHandler(
        (ex, badArgs) -> {
          errWriter.println("schedctl: " + ex.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(ex, errWriter);
          errWriter.println(
              "Try 'schedctl " + qualifiedName(ex.getCommandLine()) + "--help' for the options.");
          errWriter.flush();
          return BAD_INPUT;
        });
    cmd.setExecutionExceptionHandler((ex, c, parsed) -> handle(ex, session));
    withHelp(cmd);
    try {
      return cmd.execute(args);
    } finally {
      session.close();
      outWriter.flush();
      errWriter.flush();
    }
  }

  /** With no command: the usage, and exit 2 (nothing was asked). */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return BAD_INPUT;
  }

  /** Every command answers {@code -h/--help} and {@code -V/--version}, declared or not. */
  private static void withHelp(CommandLine c) {
    if (!(c.getCommand() instanceof CommandLine.HelpCommand)
        && !c.getCommandSpec().mixinStandardHelpOptions()) {
      c.getCommandSpec().mixinStandardHelpOptions(true);
    }
    c.getSubcommands().values().forEach(Schedctl::withHelp);
  }

  private static String qualifiedName(CommandLine c) {
    String name = c.getCommandSpec().qualifiedName(" ");
    String rest = name.startsWith("schedctl") ? name.substring("schedctl".length()).trim() : name;
    return rest.isEmpty() ? "" : rest + " ";
  }

  static Duration duration(String text) {
    Optional<Duration> d;
    try {
      d = Durations.tryParse(text);
    } catch (ArithmeticException e) {
      d = Optional.empty();
    }
    return d.orElseThrow(
        () ->
            new CommandLine.TypeConversionException(
                "'" + text + "' is not a duration (use ISO-8601 like PT5M or 30s, 5m, 1h, 2d)"));
  }

  private static int handle(Exception ex, Session session) {
    PrintStream err = session.err;
    if (ex instanceof CliException e) {
      e.lines().forEach(err::println);
      return e.exitCode();
    }
    if (ex instanceof CarillonApiException e) {
      return Remote.report(e, err);
    }
    if (ex instanceof CarillonUnreachableException e) {
      err.println("schedctl: " + e.getMessage());
      return UNREACHABLE;
    }
    if (ex instanceof ConfigException || ex instanceof InvalidValueException) {
      err.println("schedctl: " + ex.getMessage());
      return BAD_INPUT;
    }
    if (ex instanceof DataAccessException e) {
      err.println("PostgreSQL at " + session.dbShownUrl() + " failed: " + Session.rootMessage(e));
      return UNREACHABLE;
    }
    if (ex instanceof KafkaException e) {
      err.println("Kafka failed: " + Session.rootMessage(e));
      return UNREACHABLE;
    }
    err.println("schedctl: internal error: " + ex);
    ex.printStackTrace(err);
    return UNREACHABLE;
  }

  /**
   * Picocli's factory, handing every command that asks for it (a constructor taking a {@link
   * Session}) the run's session.
   */
  private record Factory(Session session) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> cls) throws Exception {
      for (Constructor<?> c : cls.getDeclaredConstructors()) {
        if (c.getParameterCount() == 1 && c.getParameterTypes()[0] == Session.class) {
          c.setAccessible(true);
          return cls.cast(c.newInstance(session));
        }
      }
      return CommandLine.defaultFactory().create(cls);
    }
  }
}
