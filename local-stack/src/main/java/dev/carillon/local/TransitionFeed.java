package dev.carillon.local;

import dev.carillon.model.instance.InstanceEvent;
import dev.carillon.store.EventQueries;
import java.io.PrintStream;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Prints one readable line per transition and decision as they land in the event log: time, task,
 * window, change, attempt and reason. Polls the log by id, so nothing is missed or printed twice.
 */
final class TransitionFeed implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(TransitionFeed.class);
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private final EventQueries events;
  private final PrintStream out;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private long lastId;

  TransitionFeed(EventQueries events, PrintStream out) {
    this.events = events;
    this.out = out;
    this.lastId = events.lastId();
  }

  @Override
  public void run() {
    while (running.get()) {
      try {
        List<InstanceEvent> batch = events.after(lastId, 500);
        for (InstanceEvent e : batch) {
          out.println(format(e));
          lastId = e.id();
        }
        if (batch.isEmpty()) {
          // The feed is a convenience view; a short poll keeps it live without load.
          Thread.sleep(250);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        if (!running.get()) {
          return; // stopping: the database may already be going away
        }
        log.warn("transition feed could not read the event log: {}", e.toString());
        try {
          // The database is unreachable (restart, shutdown): back off instead of spinning.
          Thread.sleep(1000);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  void stop() {
    running.set(false);
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
