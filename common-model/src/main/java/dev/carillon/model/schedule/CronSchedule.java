package dev.carillon.model.schedule;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.field.CronFieldName;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.task.Problem;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A Quartz cron expression with seconds (for example {@code 0 0 8 * * ?}), evaluated in one IANA
 * zone. Immutable and thread-safe.
 *
 * <h2>How fire times are computed</h2>
 *
 * <p>The expression is matched against <em>nominal</em> local wall-clock times (a calendar without
 * daylight-saving changes). Each nominal time is then turned into instants with the zone's rules.
 * cron-utils' own zone handling is deliberately not used, because it silently drops a nominal time
 * that falls into a spring-forward gap.
 *
 * <h2>Daylight-saving policy</h2>
 *
 * <ul>
 *   <li><b>Gap (spring forward).</b> A nominal time that does not exist fires at the first instant
 *       after the gap, which is the transition instant: in America/New_York a daily {@code 02:30}
 *       fires at 03:00 EDT (07:00Z) on 2026-03-08. All nominal times in one gap map to that one
 *       instant, and it is emitted once (an every-30-minutes schedule has 46 fires that day, not
 *       48). The nominal time at the end of the gap (03:00) maps to the same instant.
 *   <li><b>Gap that ends the day.</b> Where the clocks jump to midnight (America/Nuuk goes from
 *       23:00 to 00:00 on the last Saturday of March), the transition instant is already the next
 *       local date, so a nominal time in the gap fires at the last second before the gap instead,
 *       22:59:59, and its own date keeps its fire (and its {@link WindowKind#DAILY} window). Only
 *       if that second is not on its date either (a date skipped whole, as Pacific/Apia's
 *       2011-12-30) does it fire at the transition.
 *   <li><b>Overlap (fall back).</b> A repeated nominal time fires at its first occurrence (the
 *       earlier offset). If the hour field matches all 24 hours (such as {@code *} or {@code 0-23})
 *       it also fires at the second occurrence: an every-30-minutes schedule in New_York has 50
 *       fires on 2026-11-01, a daily {@code 01:30} fires once at 01:30 EDT (05:30Z), and {@code 0
 *       0,30 1 * * ?} fires twice (01:00 and 01:30 EDT), not four times.
 * </ul>
 *
 * <p>Fire times are therefore strictly ascending, unique and whole seconds. {@link
 * #fireTimesDetailed} reports which ones a change moved. The second-occurrence rule looks only at
 * the hour field: {@code 0 0 * ? * SUN} fires twice on a fall-back Sunday.
 *
 * <p>cron-utils' Quartz definition supports the years 1970 to 2099; no fire time lies outside them.
 */
public final class CronSchedule {
  private static final String FIELD = "schedule.cron";
  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

  // Searches are clamped to this range so that Instant.MIN / Instant.MAX (handy as "no bound")
  // never overflow LocalDateTime; Quartz years end in 2099, so nothing is lost.
  private static final Instant EARLIEST = Instant.parse("1969-12-30T00:00:00Z");
  private static final Instant LATEST = Instant.parse("2100-01-02T00:00:00Z");

  private final String expression;
  private final ZoneId zone;
  // Evaluated in UTC, which has no transitions, so it matches nominal wall-clock times one to one.
  private final ExecutionTime wallClock;
  private final boolean firesEveryHour;

  private CronSchedule(
      String expression, ZoneId zone, ExecutionTime wallClock, boolean firesEveryHour) {
    this.expression = expression;
    this.zone = zone;
    this.wallClock = wallClock;
    this.firesEveryHour = firesEveryHour;
  }

  /**
   * Parses a Quartz cron expression with seconds (6 fields, or 7 with a year).
   *
   * @param expression the cron text, e.g. {@code 0 0 8 * * ?}; surrounding blanks are ignored
   * @param zone the zone whose wall clock the expression describes
   * @return the schedule; {@link #expression()} returns the text as given
   * @throws InvalidValueException naming {@code schedule.cron} and the text, if the text is not a
   *     valid expression or it can never fire (such as {@code 0 0 0 30 2 ?})
   * @throws NullPointerException if {@code zone} is null
   */
  public static CronSchedule parse(String expression, ZoneId zone) {
    Objects.requireNonNull(zone, "zone");
    if (expression == null || expression.isBlank()) {
      throw invalid(expression, "is required (Quartz syntax with seconds, e.g. '0 0 8 * * ?')");
    }
    // Parsing and the never-fires check cost milliseconds; a trigger re-reads thousands of task
    // rows that share a few expressions. Schedules are immutable, so equal inputs share one.
    ParseKey key = new ParseKey(expression, zone);
    CronSchedule cached = PARSED.get(key);
    if (cached != null) {
      return cached;
    }
    CronSchedule parsed = parseUncached(expression, zone);
    if (PARSED.size() >= MAX_CACHED) {
      PARSED.clear();
    }
    PARSED.put(key, parsed);
    return parsed;
  }

  private record ParseKey(String expression, ZoneId zone) {}

  private static final int MAX_CACHED = 50_000;
  private static final java.util.concurrent.ConcurrentMap<ParseKey, CronSchedule> PARSED =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static CronSchedule parseUncached(String expression, ZoneId zone) {
    String[] fields = expression.trim().split("\\s+");
    if (fields.length == 5) {
      throw invalid(expression, fiveFieldHint(fields));
    }
    Cron cron;
    ExecutionTime executionTime;
    try {
      cron = PARSER.parse(expression.trim()).validate();
      executionTime = ExecutionTime.forCron(cron);
    } catch (RuntimeException e) {
      // cron-utils reports every syntax problem as IllegalArgumentException with a usable message.
      throw invalid(expression, "is not a valid Quartz cron expression: " + e.getMessage());
    }
    if (executionTime.nextExecution(EARLIEST.atZone(ZoneOffset.UTC)).isEmpty()) {
      throw invalid(
          expression, "never fires: no date between 1970 and 2099 matches (e.g. 30 February)");
    }
    return new CronSchedule(expression, zone, executionTime, hourFieldMatchesEveryHour(cron));
  }

  /**
   * What to write instead of a classic 5-field (Unix) expression: Carillon's cron starts with a
   * seconds field, and Quartz wants {@code ?} in one of the two day fields and counts weekdays from
   * 1 = Sunday.
   */
  static String fiveFieldHint(String[] f) {
    String dom = f[2];
    String dow = f[4];
    if (dom.equals("*") || dom.equals("?")) {
      dom = dow.equals("*") || dow.equals("?") ? "*" : "?";
    }
    if (dow.equals("*") || dow.equals("?")) {
      dow = "?";
    }
    String suggestion = "0 " + f[0] + " " + f[1] + " " + dom + " " + f[3] + " " + dow;
    String numbers =
        dow.chars().anyMatch(Character::isDigit)
            ? "; Quartz numbers weekdays 1-7 from Sunday (Unix 0-6): check the day-of-week field"
            : "";
    return "has 5 fields, but Carillon's cron starts with a seconds field (6 fields, or 7 with a"
        + " year): for a Unix '"
        + String.join(" ", f)
        + "' write '"
        + suggestion
        + "'"
        + numbers;
  }

  /**
   * Fire times in {@code (fromExclusive, upToInclusive]}, ascending, at most {@code limit}. Cheap
   * when the interval holds no fire time: one cron evaluation.
   *
   * @param fromExclusive the interval's start, itself excluded (typically the trigger cursor)
   * @param upToInclusive the interval's end, itself included (typically now)
   * @param limit the maximum number of fire times to return, at least 0
   * @return the fire times, empty if {@code upToInclusive} is not after {@code fromExclusive}
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  public List<Instant> fireTimes(Instant fromExclusive, Instant upToInclusive, int limit) {
    return fireTimesDetailed(fromExclusive, upToInclusive, limit).stream()
        .map(FireTime::instant)
        .toList();
  }

  /**
   * Like {@link #fireTimes}, but each fire time also carries its nominal local time and how a
   * daylight-saving change moved it. Meant for operators ({@code schedctl next}).
   *
   * @throws IllegalArgumentException if {@code limit} is negative
   */
  public List<FireTime> fireTimesDetailed(Instant fromExclusive, Instant upToInclusive, int limit) {
    Objects.requireNonNull(fromExclusive, "fromExclusive");
    Objects.requireNonNull(upToInclusive, "upToInclusive");
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, was " + limit);
    }
    if (limit == 0 || !upToInclusive.isAfter(fromExclusive)) {
      return List.of();
    }
    List<FireTime> result = new ArrayList<>();
    Instant cursor = firstWholeSecondAfter(fromExclusive);
    while (result.size() < limit) {
      Optional<FireTime> next = firstAtOrAfter(cursor, upToInclusive);
      if (next.isEmpty() || next.get().instant().isAfter(upToInclusive)) {
        break;
      }
      result.add(next.get());
      cursor = next.get().instant().plusSeconds(1);
    }
    return List.copyOf(result);
  }

  /**
   * The first fire time strictly after {@code after}.
   *
   * @return the fire time, or empty if the expression never fires again (at the latest after 2099)
   */
  public Optional<Instant> nextAfter(Instant after) {
    Objects.requireNonNull(after, "after");
    return firstAtOrAfter(firstWholeSecondAfter(after), LATEST).map(FireTime::instant);
  }

  /** The cron text as given to {@link #parse}. */
  public String expression() {
    return expression;
  }

  /** The zone whose wall clock the expression describes. */
  public ZoneId zone() {
    return zone;
  }

  private static Instant firstWholeSecondAfter(Instant instant) {
    if (instant.isBefore(EARLIEST)) {
      return EARLIEST;
    }
    if (instant.isAfter(LATEST)) {
      return LATEST.plusSeconds(1);
    }
    return instant.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
  }

  /**
   * Walks the timeline one stretch of constant offset at a time. Within a stretch, nominal local
   * times and instants correspond one to one, so one cron evaluation finds the next candidate; the
   * stretch's end transition decides whether the candidate is real, sits behind a gap, or is the
   * second occurrence of a repeated time. {@code start} is a whole second; iteration stops once the
   * cursor passes {@code bound}, and the result may lie after {@code bound}.
   */
  private Optional<FireTime> firstAtOrAfter(Instant start, Instant bound) {
    if (start.isAfter(LATEST)) {
      return Optional.empty();
    }
    // If `start` is exactly the end of a gap, the gap's nominal times fire at `start`, but the
    // walk below would begin at the local time after the gap and miss them. Transitions fall on
    // whole seconds, so an offset change within the last second means a transition at `start`.
    // Read on every search, not kept: a zone whose rules provider updates them (a test's, or one
    // that reloads tzdata) is followed at once. For the JDK's own zones this is a field read.
    ZoneRules rules = zone.getRules();
    ZoneOffset before = rules.getOffset(start.minusSeconds(1));
    ZoneOffset after = rules.getOffset(start);
    if (after.getTotalSeconds() > before.getTotalSeconds()) {
      ZoneOffsetTransition gap =
          ZoneOffsetTransition.of(start.atOffset(before).toLocalDateTime(), before, after);
      Optional<LocalDateTime> inGap = nominalAtOrAfter(gap.getDateTimeBefore());
      if (inGap.isPresent() && !outOfGap(gap, inGap.get()).equals(start)) {
        // That date's nominal times fired a second before the gap; the next date's fire here.
        inGap = nominalAtOrAfter(inGap.get().toLocalDate().plusDays(1).atStartOfDay());
      }
      if (inGap.isPresent() && inGap.get().isBefore(gap.getDateTimeAfter())) {
        return Optional.of(new FireTime(start, inGap.get(), DstAdjustment.SHIFTED_OUT_OF_GAP));
      }
    }
    Instant cursor = start;
    while (!cursor.isAfter(bound) && !cursor.isAfter(LATEST)) {
      ZoneOffset offset = rules.getOffset(cursor);
      ZoneOffsetTransition stretchEnd = rules.nextTransition(cursor);
      Optional<LocalDateTime> nominal = nominalAtOrAfter(LocalDateTime.ofInstant(cursor, offset));
      if (nominal.isEmpty()) {
        // No later nominal time at all, so no gap further on can hold one either.
        return Optional.empty();
      }
      LocalDateTime wall = nominal.get();
      Instant candidate = wall.toInstant(offset);
      if (stretchEnd == null || candidate.isBefore(stretchEnd.getInstant())) {
        ZoneOffsetTransition around = rules.getTransition(wall);
        if (around == null) {
          return Optional.of(new FireTime(candidate, wall, DstAdjustment.NONE));
        }
        // The wall time is valid in this stretch, so `around` is an overlap, not a gap.
        if (offset.equals(around.getOffsetBefore())) {
          return Optional.of(new FireTime(candidate, wall, DstAdjustment.FIRST_OF_REPEATED));
        }
        if (firesEveryHour) {
          return Optional.of(new FireTime(candidate, wall, DstAdjustment.SECOND_OF_REPEATED));
        }
        cursor = candidate.plusSeconds(1);
        continue;
      }
      // The candidate lies beyond this stretch; wall >= the local time where the stretch ends.
      if (stretchEnd.isGap() && wall.isBefore(stretchEnd.getDateTimeAfter())) {
        // `cursor` lies before the gap, so even the second before it is not in the past.
        return Optional.of(
            new FireTime(outOfGap(stretchEnd, wall), wall, DstAdjustment.SHIFTED_OUT_OF_GAP));
      }
      cursor = stretchEnd.getInstant();
    }
    return Optional.empty();
  }

  /**
   * Where a nominal time inside {@code gap} fires: at the transition, unless the transition is
   * already a later local date and the second before it is still the nominal time's date (the gap
   * ends the day); then at that second.
   */
  private static Instant outOfGap(ZoneOffsetTransition gap, LocalDateTime nominal) {
    LocalDate date = nominal.toLocalDate();
    if (!gap.getDateTimeAfter().toLocalDate().equals(date)
        && gap.getDateTimeBefore().minusSeconds(1).toLocalDate().equals(date)) {
      return gap.getInstant().minusSeconds(1);
    }
    return gap.getInstant();
  }

  private Optional<LocalDateTime> nominalAtOrAfter(LocalDateTime wholeSecond) {
    // cron-utils returns executions strictly after its argument.
    return wallClock
        .nextExecution(wholeSecond.minusSeconds(1).atZone(ZoneOffset.UTC))
        .map(ZonedDateTime::toLocalDateTime);
  }

  /**
   * Whether the hour field alone matches all 24 hours ({@code *}, {@code 0-23}, {@code 0/1}...).
   * Judged by matching a probe expression with only that hour field, so any syntax cron-utils
   * accepts is judged the same way it is evaluated.
   */
  private static boolean hourFieldMatchesEveryHour(Cron cron) {
    String hours = cron.retrieve(CronFieldName.HOUR).getExpression().asString();
    ExecutionTime probe = ExecutionTime.forCron(PARSER.parse("0 0 " + hours + " * * ?"));
    LocalDate day = LocalDate.of(2001, 1, 1);
    for (int hour = 0; hour < 24; hour++) {
      if (!probe.isMatch(day.atTime(hour, 0).atZone(ZoneOffset.UTC))) {
        return false;
      }
    }
    return true;
  }

  private static InvalidValueException invalid(String expression, String reason) {
    return new InvalidValueException(new Problem(FIELD, expression, reason));
  }

  /** Two schedules are equal when they have the same expression text and zone. */
  @Override
  public boolean equals(Object other) {
    return other instanceof CronSchedule that
        && expression.equals(that.expression)
        && zone.equals(that.zone);
  }

  @Override
  public int hashCode() {
    return Objects.hash(expression, zone);
  }

  @Override
  public String toString() {
    return "CronSchedule[" + expression + " in " + zone + "]";
  }
}
