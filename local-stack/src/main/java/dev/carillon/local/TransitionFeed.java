package dev.carillon.local;

import dev.carillon.loop.Pace;
import dev.carillon.loop.PeriodicLoop;
import dev.carillon.loop.PeriodicLoop.StopMode;
import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.store.EventQueries;
import java.io.PrintStream;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Prints one readable line per transition and decision as they land in the event log: time, task,
 * window, change, attempt and reason. Polls the log by id on its own thread, so nothing is missed
 * or printed twice: every 250 ms, or a second after a failed read (the database is restarting or
 * going away).
 */
final class TransitionFeed implements AutoCloseable {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());
  private static final int BATCH = 500;

  private final EventQueries events;
  private final PrintStream out;
  private final PeriodicLoop loop;
  private long lastId;

  TransitionFeed(EventQueries events, PrintStream out) {
    this.events = events;
    this.out = out;
    this.lastId = events.lastId();
    // The feed is a convenience view; a short poll keeps it live without load.
    this.loop =
        new PeriodicLoop(
            "carillon-local-feed",
            Pace.fixedDelay(Duration.ZERO, Duration.ofMillis(250), Duration.ofSeconds(1)),
            StopMode.INTERRUPT,
            this::printNew);
  }

  /** Starts printing on the feed's thread. */
  void start() {
    loop.start();
  }

  /** Prints every event after the last one printed. */
  void printNew() {
    List<InstanceEvent> batch;
    do {
      batch = events.after(lastId, BATCH);
      for (InstanceEvent e : batch) {
        out.println(format(e));
        lastId = e.id();
      }
    } while (batch.size() == BATCH);
  }

  /** Stops printing and waits for the feed's thread, at most 5 seconds. */
  @Override
  public void close() {
    loop.stopAndWait(Duration.ofSeconds(5));
  }

  static String format(InstanceEvent e) {
    String change =
        switch (e.kind()) {
          case CREATED -> "created " + e.to();
          case TRANSITION -> e.from() + " -> " + e.to();
          case DECISION -> "decision";
        };
    return String.format(
        "%s  %-14s %-26s %-22s %s%s",
        TIME.format(e.at()),
        e.taskId(),
        e.windowKey() == null ? "-" : e.windowKey(),
        change,
        e.attempt() == null || e.attempt() == 0 ? "" : "attempt " + e.attempt() + "  ",
        e.reason() == null ? "" : e.reason());
  }
}
