package dev.carillon.faults;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * The full run's long outages (issue 20): PostgreSQL hung (SIGSTOP) for 60 s, ZooKeeper down for
 * 120 s and Kafka down for 300 s while {@link #FIRES_PER_SECOND} burst tasks fire every second. The
 * run is laid out in blocks, each {@code [one short-fault cycle][PostgreSQL hung][ZooKeeper
 * down][burst with Kafka down]}; the burst starts on a minute boundary so that each of its tasks
 * needs one cron expression per hour it touches.
 *
 * <p>On when {@code -Dfaults.long-outages=true} ({@code faults/run-full.sh} sets it) or the
 * workload lasts at least 30 minutes; {@code -Dfaults.long-outage-scale} multiplies the three
 * outage lengths (e.g. 0.2 to check the mechanics in a short run). Pure: the layout and the burst
 * tasks follow from the start instant and the settings.
 */
final class LongOutages {
  /** PostgreSQL SIGSTOPped this long at scale 1. */
  static final Duration POSTGRES_HANG = Duration.ofSeconds(60);

  /** ZooKeeper stopped this long at scale 1. */
  static final Duration ZOOKEEPER_DOWN = Duration.ofSeconds(120);

  /** Kafka stopped this long at scale 1. */
  static final Duration KAFKA_DOWN = Duration.ofSeconds(300);

  /** Burst tasks, each firing every second while its burst lasts: the fire rate of the burst. */
  static final int FIRES_PER_SECOND = 100;

  /** The short faults' cycle at the start of each block (as in the reduced run). */
  static final Duration SHORT_CYCLE = Duration.ofSeconds(100);

  /** After the short cycle (its PostgreSQL crash restarts at 98 s), before the hang. */
  static final Duration AFTER_SHORT = Duration.ofSeconds(15);

  /** After the hang and after ZooKeeper's return: services recover, leaders are elected again. */
  static final Duration RECOVER = Duration.ofSeconds(15);

  /** Burst fires published live before Kafka stops. */
  static final Duration BURST_LEAD = Duration.ofSeconds(10);

  /** The least time the burst goes on after Kafka returns (then up to the next minute). */
  static final Duration BURST_TAIL = Duration.ofSeconds(5);

  /** After a burst, before the next block: the backlog drains (it may overlap the next block). */
  static final Duration AFTER_BURST = Duration.ofSeconds(10);

  /** Whether the long outages run, and how long they are. */
  record Settings(boolean enabled, double scale) {
    Settings {
      if (!(scale > 0 && scale <= 1)) {
        throw new IllegalArgumentException(
            "faults.long-outage-scale=" + scale + ": must be in (0, 1]");
      }
    }

    /** From {@code faults.long-outages} (default: on for a workload of 30 minutes or more). */
    static Settings fromSystemProperties(Duration workload) {
      String on = System.getProperty("faults.long-outages");
      boolean enabled =
          on == null || on.isBlank()
              ? workload.compareTo(Duration.ofMinutes(30)) >= 0
              : Boolean.parseBoolean(on.trim());
      String scale = System.getProperty("faults.long-outage-scale", "1");
      try {
        return new Settings(enabled, Double.parseDouble(scale.trim()));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "faults.long-outage-scale='" + scale + "': not a number", e);
      }
    }

    Duration postgresHang() {
      return scaled(POSTGRES_HANG);
    }

    Duration zooKeeperDown() {
      return scaled(ZOOKEEPER_DOWN);
    }

    Duration kafkaDown() {
      return scaled(KAFKA_DOWN);
    }

    private Duration scaled(Duration d) {
      return Duration.ofSeconds(Math.max(5, Math.round(d.toSeconds() * scale)));
    }

    /** A block's length without the minute alignment of its burst. */
    Duration nominalBlock() {
      return SHORT_CYCLE
          .plus(AFTER_SHORT)
          .plus(postgresHang())
          .plus(RECOVER)
          .plus(zooKeeperDown())
          .plus(RECOVER)
          .plus(Duration.ofSeconds(30)) // the burst's minute alignment, on average
          .plus(BURST_LEAD)
          .plus(kafkaDown())
          .plus(Duration.ofSeconds(35)) // the burst's tail up to the minute, on average
          .plus(AFTER_BURST);
    }

    /**
     * How many blocks a workload of {@code d} gets: enough to fill it (the last block may end after
     * {@code d}: a 30 minute run has three blocks of about 12 minutes at scale 1), at least one.
     */
    int blocks(Duration d) {
      return (int) Math.max(1, Math.ceil(d.toSeconds() / (double) nominalBlock().toSeconds()));
    }
  }

  /**
   * One block of the layout, in absolute instants.
   *
   * @param burstFrom the first second the burst tasks fire (a minute boundary)
   * @param burstUntil the end of the burst, exclusive (a minute boundary)
   */
  record Block(
      int index,
      Instant shortCycleAt,
      Instant postgresHangAt,
      Duration postgresHang,
      Instant zooKeeperDownAt,
      Duration zooKeeperDown,
      Instant burstFrom,
      Instant kafkaDownAt,
      Duration kafkaDown,
      Instant burstUntil,
      Instant end) {
    Instant kafkaUpAt() {
      return kafkaDownAt.plus(kafkaDown);
    }
  }

  private LongOutages() {}

  /** {@code blocks} blocks back to back from {@code start}. */
  static List<Block> layout(Instant start, int blocks, Settings s) {
    List<Block> out = new ArrayList<>();
    Instant t = start;
    for (int i = 0; i < blocks; i++) {
      Instant hangAt = t.plus(SHORT_CYCLE).plus(AFTER_SHORT);
      Instant zkAt = hangAt.plus(s.postgresHang()).plus(RECOVER);
      Instant burstFrom = ceilMinute(zkAt.plus(s.zooKeeperDown()).plus(RECOVER));
      Instant kafkaAt = burstFrom.plus(BURST_LEAD);
      Instant burstUntil = ceilMinute(kafkaAt.plus(s.kafkaDown()).plus(BURST_TAIL));
      Instant end = burstUntil.plus(AFTER_BURST);
      out.add(
          new Block(
              i + 1,
              t,
              hangAt,
              s.postgresHang(),
              zkAt,
              s.zooKeeperDown(),
              burstFrom,
              kafkaAt,
              s.kafkaDown(),
              burstUntil,
              end));
      t = end;
    }
    return out;
  }

  static Instant ceilMinute(Instant t) {
    Instant floor = t.truncatedTo(ChronoUnit.MINUTES);
    return floor.equals(t) ? t : floor.plus(Duration.ofMinutes(1));
  }

  /**
   * Quartz cron expressions that together fire every second of {@code [from, until)} (both minute
   * boundaries) and at no other time within a year: one per UTC hour the interval touches.
   */
  static List<String> everySecond(Instant from, Instant until) {
    if (!from.equals(from.truncatedTo(ChronoUnit.MINUTES))
        || !until.equals(until.truncatedTo(ChronoUnit.MINUTES))
        || !until.isAfter(from)) {
      throw new IllegalArgumentException(
          "burst [" + from + ", " + until + "): must be whole minutes, non-empty");
    }
    List<String> out = new ArrayList<>();
    ZonedDateTime t = from.atZone(ZoneOffset.UTC);
    ZonedDateTime end = until.atZone(ZoneOffset.UTC);
    while (t.isBefore(end)) {
      ZonedDateTime hourEnd = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
      ZonedDateTime pieceEnd = hourEnd.isBefore(end) ? hourEnd : end;
      int lastMinute = pieceEnd.minusMinutes(1).getMinute();
      out.add(
          String.format(
              "* %d-%d %d %d %d ?",
              t.getMinute(), lastMinute, t.getHour(), t.getDayOfMonth(), t.getMonthValue()));
      t = pieceEnd;
    }
    return out;
  }

  /** The burst tasks of every block: {@link #FIRES_PER_SECOND} per cron piece, zone UTC. */
  static List<Workload.TaskSpec> burstTasks(List<Block> blocks) {
    List<Workload.TaskSpec> out = new ArrayList<>();
    for (Block b : blocks) {
      List<String> crons = everySecond(b.burstFrom(), b.burstUntil());
      for (int p = 0; p < crons.size(); p++) {
        for (int i = 0; i < FIRES_PER_SECOND; i++) {
          out.add(Workload.burst(BURST_PREFIX + b.index() + "-" + p + "-" + i, crons.get(p)));
        }
      }
    }
    return out;
  }

  /** Ids of burst tasks start with this (and with {@code f-}, so the invariants cover them). */
  static final String BURST_PREFIX = "f-burst-";

  /**
   * What the harness saw of the trigger while Kafka was down, sampled every few seconds from the
   * triggers' {@code /metrics} and {@code /proc}.
   *
   * @param firesPerSecond burst windows created with a fire time inside the outage, per second
   * @param backlogPeak the largest {@code carillon_trigger_dispatch_backlog} of any trigger
   * @param backlogBound the configured {@code trigger.max-dispatch-backlog}
   * @param deferred how much {@code carillon_trigger_publish_total{result="deferred"}} grew
   * @param oldestAgePeak the largest {@code carillon_trigger_dispatch_oldest_age}, seconds
   * @param fellBackAfter from Kafka's return until the age was below {@link #AGE_FELL_BACK}; null
   *     when it did not within the sampling
   * @param triggerHwmKb the largest VmHWM of a trigger process at the end of the sampling
   */
  record KafkaOutage(
      int block,
      Duration down,
      double firesPerSecond,
      double backlogPeak,
      int backlogBound,
      double deferred,
      double oldestAgePeak,
      Duration fellBackAfter,
      long triggerHwmKb,
      int samples) {}

  /** The alert metric counts as back to normal below this many seconds. */
  static final double AGE_FELL_BACK = 10;

  /** A trigger's resident set may not exceed this (its heap is capped at 160 MiB). */
  static final long TRIGGER_HWM_BOUND_KB = 400 * 1024;

  /**
   * The Kafka outage's checks: the burst fired at the rate, the dispatch queue stayed within its
   * bound while the overflow was left to the database (deferred grew), the alert metric rose to at
   * least half the outage and fell back after Kafka returned, and the trigger's memory stayed
   * bounded.
   */
  static Invariants.Check kafkaOutage(KafkaOutage k) {
    double rose = k.down().toSeconds() / 2.0;
    boolean rate = k.firesPerSecond() >= FIRES_PER_SECOND;
    boolean bounded = k.backlogPeak() <= k.backlogBound() && k.deferred() > 0;
    boolean alerted = k.oldestAgePeak() >= rose && k.fellBackAfter() != null;
    boolean memory = k.triggerHwmKb() > 0 && k.triggerHwmKb() <= TRIGGER_HWM_BOUND_KB;
    return new Invariants.Check(
        "Kafka down "
            + k.down().toSeconds()
            + " s (block "
            + k.block()
            + "): dispatch queue bounded, overflow deferred to the database, oldest-undispatched"
            + " alert rose and fell back, trigger memory bounded",
        rate && bounded && alerted && memory && k.samples() > 0,
        String.format(
            "%.1f fires/s; backlog peak %.0f (bound %d), %.0f deferred; oldest age peak %.0f s"
                + " (needs >= %.0f), below %.0f s %s after Kafka returned; trigger VmHWM %d MiB"
                + " (bound %d); %d samples%s",
            k.firesPerSecond(),
            k.backlogPeak(),
            k.backlogBound(),
            k.deferred(),
            k.oldestAgePeak(),
            rose,
            AGE_FELL_BACK,
            k.fellBackAfter() == null ? "NEVER" : k.fellBackAfter().toSeconds() + " s",
            k.triggerHwmKb() / 1024,
            TRIGGER_HWM_BOUND_KB / 1024,
            k.samples(),
            (rate ? "" : " (below " + FIRES_PER_SECOND + " fires/s)")
                + (k.deferred() > 0 ? "" : " (nothing deferred: the bound was never reached)")));
  }
}
