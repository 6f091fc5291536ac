package dev.carillon.bench.schedules;

import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.store.DbSettings;
import java.time.Duration;

/**
 * What {@code SchedulesBench} runs: {@code [tasks] [--seed S] [--apply-chunk K]
 * [--statement-timeout D]}.
 *
 * @param tasks how many tasks to create and schedule
 * @param seed the seed of the zone draw ({@link ScheduleMix})
 * @param applyChunk definitions per {@code TaskStore.applyAll} call, each call one transaction
 * @param statementTimeout PostgreSQL's statement timeout for every statement of the bench's pool,
 *     the trigger's default unless given: a first tick whose definition load takes longer fails as
 *     a trigger's would
 */
public record SchedulesOptions(int tasks, long seed, int applyChunk, Duration statementTimeout) {
  public static final int DEFAULT_TASKS = 1_000_000;
  public static final long DEFAULT_SEED = 24;
  public static final int DEFAULT_APPLY_CHUNK = 100_000;

  public SchedulesOptions {
    if (tasks < 1) {
      throw new IllegalArgumentException("tasks must be at least 1, was " + tasks);
    }
    if (applyChunk < 1) {
      throw new IllegalArgumentException("--apply-chunk must be at least 1, was " + applyChunk);
    }
    if (statementTimeout == null || statementTimeout.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException(
          "--statement-timeout must be at least 100ms, was " + statementTimeout);
    }
  }

  /**
   * Reads the command line.
   *
   * @throws IllegalArgumentException naming the argument and its value when one is not understood
   */
  public static SchedulesOptions parse(String... args) {
    int tasks = DEFAULT_TASKS;
    long seed = DEFAULT_SEED;
    int applyChunk = DEFAULT_APPLY_CHUNK;
    Duration statementTimeout = DbSettings.DEFAULT_STATEMENT_TIMEOUT;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--seed" -> seed = number(a, value(args, ++i, a));
        case "--apply-chunk" -> applyChunk = (int) number(a, value(args, ++i, a));
        case "--statement-timeout" -> statementTimeout = duration(a, value(args, ++i, a));
        default -> {
          if (i != 0 || a.startsWith("-")) {
            throw new IllegalArgumentException(
                "unknown argument '"
                    + a
                    + "'; use [tasks] [--seed S] [--apply-chunk K] [--statement-timeout D]");
          }
          tasks = (int) number("tasks", a);
        }
      }
    }
    return new SchedulesOptions(tasks, seed, applyChunk, statementTimeout);
  }

  private static String value(String[] args, int i, String name) {
    if (i >= args.length) {
      throw new IllegalArgumentException(name + " needs a value");
    }
    return args[i];
  }

  private static Duration duration(String name, String text) {
    try {
      return Durations.parse(name, text);
    } catch (InvalidValueException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static long number(String name, String text) {
    try {
      long n = Long.parseLong(text.replace("_", "").replace(",", ""));
      if (n > Integer.MAX_VALUE && !name.equals("--seed")) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, was '" + text + "'", e);
    }
  }
}
