package dev.carillon.model.schedule;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.Month;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.Predicate;
import java.util.stream.IntStream;

/**
 * A cron expression for {@link CronSchedule}, and beside it, written out by hand, what its fields
 * mean as predicates on local wall-clock time. The oracle reads only the predicates, so it shares
 * no parsing with the code it checks.
 *
 * @param cron the Quartz text given to {@link CronSchedule#parse}
 * @param second which seconds of a minute the seconds field matches
 * @param minute which minutes of an hour the minutes field matches
 * @param hour which hours of a day the hours field matches
 * @param day which local dates the day-of-month, month and day-of-week fields together match
 */
record OracleExpression(
    String cron,
    IntPredicate second,
    IntPredicate minute,
    IntPredicate hour,
    Predicate<LocalDate> day) {

  private static final IntPredicate ZERO = v -> v == 0;
  private static final IntPredicate ANY = v -> true;
  private static final Predicate<LocalDate> EVERY_DAY = d -> true;

  /** Whether the hour field matches all 24 hours, the condition for firing twice in a repeat. */
  boolean hourFieldMatchesEveryHour() {
    return IntStream.range(0, 24).allMatch(hour);
  }

  /** How many local times of a matching day the expression names. */
  long timesPerDay() {
    return IntStream.range(0, 24).filter(hour).count()
        * IntStream.range(0, 60).filter(minute).count()
        * IntStream.range(0, 60).filter(second).count();
  }

  @Override
  public String toString() {
    return "'" + cron + "'";
  }

  static OracleExpression daily(int hour, int minute) {
    return new OracleExpression(
        "0 " + minute + " " + hour + " * * ?", ZERO, m -> m == minute, h -> h == hour, EVERY_DAY);
  }

  static OracleExpression everyMinutes(int step) {
    return new OracleExpression(
        "0 */" + step + " * * * ?", ZERO, m -> m % step == 0, ANY, EVERY_DAY);
  }

  static OracleExpression hourly() {
    return new OracleExpression("0 0 * * * ?", ZERO, ZERO, ANY, EVERY_DAY);
  }

  static OracleExpression weeklySunday(int hour, int minute) {
    return new OracleExpression(
        "0 " + minute + " " + hour + " ? * SUN",
        ZERO,
        m -> m == minute,
        h -> h == hour,
        d -> d.getDayOfWeek() == DayOfWeek.SUNDAY);
  }

  static OracleExpression monthlyOn31st(int hour, int minute) {
    return new OracleExpression(
        "0 " + minute + " " + hour + " 31 * ?",
        ZERO,
        m -> m == minute,
        h -> h == hour,
        d -> d.getDayOfMonth() == 31);
  }

  static OracleExpression lastDayOfMonth(int hour, int minute) {
    return new OracleExpression(
        "0 " + minute + " " + hour + " L * ?",
        ZERO,
        m -> m == minute,
        h -> h == hour,
        d -> d.equals(d.with(TemporalAdjusters.lastDayOfMonth())));
  }

  static OracleExpression yearlyOn29February(int hour, int minute) {
    return new OracleExpression(
        "0 " + minute + " " + hour + " 29 2 ?",
        ZERO,
        m -> m == minute,
        h -> h == hour,
        d -> d.getMonth() == Month.FEBRUARY && d.getDayOfMonth() == 29);
  }

  /**
   * The set: daily at each of the 48 half-hours, hourly, every 5 and every 30 minutes,
   * weekly on Sunday at 01:30 and 02:30, and monthly on the 31st, on the last day of the month and
   * yearly on 29 February, each at 02:30 (the hour most transitions cut or repeat).
   */
  static List<OracleExpression> standardSet() {
    List<OracleExpression> all = new ArrayList<>();
    for (int halfHour = 0; halfHour < 48; halfHour++) {
      all.add(daily(halfHour / 2, halfHour % 2 * 30));
    }
    all.add(hourly());
    all.add(everyMinutes(5));
    all.add(everyMinutes(30));
    all.add(weeklySunday(1, 30));
    all.add(weeklySunday(2, 30));
    all.add(monthlyOn31st(2, 30));
    all.add(lastDayOfMonth(2, 30));
    all.add(yearlyOn29February(2, 30));
    return List.copyOf(all);
  }
}
