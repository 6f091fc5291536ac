package dev.carillon.bench.schedules;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The most heap in use after any garbage collection while it watches: how high a step's live data
 * (plus whatever garbage the old generation still held) rose, which a measurement after the step
 * misses. A step during which no collection ran shows nothing.
 */
public final class HeapWatch implements AutoCloseable {
  private final AtomicLong maxAfterGc = new AtomicLong();
  private final AtomicLong collections = new AtomicLong();
  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private final NotificationListener listener = this::onNotification;
  private final Set<String> heapPools =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());

  private HeapWatch() {}

  /** Starts watching every collector of this JVM. */
  public static HeapWatch start() {
    HeapWatch w = new HeapWatch();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(w.listener, null, null);
        w.emitters.add(emitter);
      }
    }
    return w;
  }

  private void onNotification(Notification n, Object handback) {
    if (!n.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long used =
        info.getGcInfo().getMemoryUsageAfterGc().entrySet().stream()
            .filter(e -> heapPools.contains(e.getKey()))
            .mapToLong(e -> e.getValue().getUsed())
            .sum();
    collections.incrementAndGet();
    maxAfterGc.accumulateAndGet(used, Math::max);
  }

  /** The most heap in use after a collection so far, in bytes (0 if none ran). */
  public long maxAfterGc() {
    return maxAfterGc.get();
  }

  /** How many collections were seen. */
  public long collections() {
    return collections.get();
  }

  /** Stops watching. */
  @Override
  public void close() {
    for (NotificationEmitter e : emitters) {
      try {
        e.removeNotificationListener(listener);
      } catch (ListenerNotFoundException ignored) {
        // never added: nothing to remove
      }
    }
  }
}
