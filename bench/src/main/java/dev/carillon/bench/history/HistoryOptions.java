package dev.carillon.bench.history;

/**
 * What {@code HistoryBench} runs: {@code [--days D] [--per-day N] [--tasks T] [--backlog B]
 * [--rounds R]}.
 *
 * @param days days of finished instances in the live tables (the retention's worth)
 * @param perDay instances created a day, spread evenly over it
 * @param tasks tasks the instances belong to, round robin
 * @param backlog finished instances older than the retention, for the archiver to move while the
 *     bench times it (a day's worth is {@code perDay}; the default moves a sample)
 * @param rounds timed rounds of each read, after a warm-up of a tenth as many (at least 5)
 */
public record HistoryOptions(int days, int perDay, int tasks, int backlog, int rounds) {
  public static final int DEFAULT_DAYS = 30;
  public static final int DEFAULT_PER_DAY = 1_000_000;
  public static final int DEFAULT_TASKS = 10_000;
  public static final int DEFAULT_BACKLOG = 20_000;
  public static final int DEFAULT_ROUNDS = 100;

  private static final String USAGE =
      "use [--days D] [--per-day N] [--tasks T] [--backlog B] [--rounds R]";

  public HistoryOptions {
    atLeast("--days", days, 1);
    atLeast("--per-day", perDay, 100);
    atLeast("--tasks", tasks, 1);
    atLeast("--backlog", backlog, 1);
    atLeast("--rounds", rounds, 1);
    if (tasks > perDay) {
      throw new IllegalArgumentException(
          "--tasks (" + tasks + ") must not exceed --per-day (" + perDay + ")");
    }
  }

  /** The warm-up rounds before the timed ones. */
  public int warmup() {
    return Math.max(5, rounds / 10);
  }

  /** Instances in the live tables after seeding, the backlog included. */
  public long liveInstances() {
    return (long) days * perDay + backlog;
  }

  /**
   * Reads the command line.
   *
   * @throws IllegalArgumentException naming the argument and its value when one is not understood
   */
  public static HistoryOptions parse(String... args) {
    int days = DEFAULT_DAYS;
    int perDay = DEFAULT_PER_DAY;
    int tasks = DEFAULT_TASKS;
    int backlog = DEFAULT_BACKLOG;
    int rounds = DEFAULT_ROUNDS;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length && a.startsWith("--")) {
        throw new IllegalArgumentException(a + " needs a value; " + USAGE);
      }
      switch (a) {
        case "--days" -> days = number(a, args[++i]);
        case "--per-day" -> perDay = number(a, args[++i]);
        case "--tasks" -> tasks = number(a, args[++i]);
        case "--backlog" -> backlog = number(a, args[++i]);
        case "--rounds" -> rounds = number(a, args[++i]);
        default -> throw new IllegalArgumentException("unknown argument '" + a + "'; " + USAGE);
      }
    }
    return new HistoryOptions(days, perDay, tasks, backlog, rounds);
  }

  private static void atLeast(String name, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", was " + value);
    }
  }

  private static int number(String name, String text) {
    try {
      return Integer.parseInt(text.replace("_", "").replace(",", ""));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'", e);
    }
  }
}
