package io.weft.transport.spi;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The heap running out without an {@link OutOfMemoryError}: a JVM whose live data nearly fills
 * the heap collects again and again, each collection freeing a little, and may go on so for
 * minutes before (or instead of) throwing. The heap's use right after a full collection says it:
 * over {@value #DEFAULT_PERCENT}% of its maximum (system property {@value #PERCENT_PROPERTY}, 1 to
 * 100; 0 turns this off), the heap counts as exhausted, exactly as if a thread had met the error.
 *
 * <p>Read from the collectors' notifications ({@code com.sun.management}, module
 * {@code jdk.management}), which the JVM sends on its own notification thread some time after
 * each collection: late, when that thread is slow to run, so possibly after the runs it concerns
 * have ended and others begun. So each notification is judged by its collection's number (the
 * collector's count of collections, the collection included): it tells only the watches that
 * began while that collector had done fewer ({@link #isCurrent}). A full collection that found
 * the heap full before a run began says nothing about that run's heap: the data it found may
 * have been freed since (an aborted run's), and only a later collection can tell. Listened to
 * only while a watch needs them ({@link #listen}, {@link #stopListening}): the JVM builds a
 * notification only for a collector with a listener, and in a heap full to the end each build
 * fails, after collections of its own.
 *
 * <p>A full collection is one the JVM reports as {@value #FULL_COLLECTION} (Serial, Parallel,
 * G1): young and mixed collections leave the old generation's garbage uncounted, so their
 * figures say nothing about live data.
 */
final class CollectionUsageWatch {
  static final String PERCENT_PROPERTY = "io.weft.transport.heapFullAfterCollectionPercent";
  static final int DEFAULT_PERCENT = 95;
  /** How the JVM names the end of a collection of the whole heap, in its notification. */
  static final String FULL_COLLECTION = "end of major GC";

  /**
   * The reason when the words do not fit. Not a constant, so that its literal is made as the
   * class loads: a literal's first use may allocate it, and here that is when the heap is full.
   */
  private static final String NEARLY_FULL;

  static {
    NEARLY_FULL = "the heap ran out (still nearly full after a full collection)";
  }

  private static final long[] NONE = new long[0];

  private static boolean installed;
  /** The collectors listened to, by index (the handback of their notifications); empty when off. */
  private static volatile GarbageCollectorMXBean[] collectors = new GarbageCollectorMXBean[0];
  /** The handback of collector {@code i}'s notifications: its index, the same object each time. */
  private static Integer[] handbacks = new Integer[0];
  /** Whether the listener is on collector {@code i} now; under the class's lock. */
  private static boolean[] listening = new boolean[0];
  private static String[] heapPools = new String[0];
  private static long heapMax;
  private static int percent;

  /**
   * The one listener, added and removed as the same object: the JVM builds a collector's
   * notifications (after every collection, on its notification thread) only while the collector
   * has a listener. Assigned here, not a method reference at its use: that would link it there.
   */
  private static final NotificationListener LISTENER;

  static {
    LISTENER = CollectionUsageWatch::collected;
  }

  private CollectionUsageWatch() {}

  /**
   * Finds the collectors to listen to, once per JVM; does nothing if the JVM cannot tell or it is
   * off. Listens to none of them yet ({@link #listen}).
   */
  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    int p = Integer.getInteger(PERCENT_PROPERTY, DEFAULT_PERCENT);
    long max = Runtime.getRuntime().maxMemory();
    if (p <= 0 || p > 100 || max <= 0 || max == Long.MAX_VALUE) {
      return;
    }
    List<String> pools = new ArrayList<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pools.add(pool.getName());
      }
    }
    percent = p;
    heapMax = max;
    heapPools = pools.toArray(new String[0]);
    List<GarbageCollectorMXBean> heard = new ArrayList<>();
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter) {
        heard.add(collector);
      }
    }
    Integer[] backs = new Integer[heard.size()];
    for (int i = 0; i < backs.length; i++) {
      backs[i] = Integer.valueOf(i);
    }
    handbacks = backs;
    listening = new boolean[backs.length];
    collectors = heard.toArray(new GarbageCollectorMXBean[0]);
  }

  /**
   * Listens to every collector not listened to yet ({@link #install}ing first): a watch begins.
   * One the heap has no room to add to goes unheard until the next call (the other watches, and
   * the threads' own errors, still tell).
   */
  static synchronized void listen() {
    install();
    GarbageCollectorMXBean[] now = collectors;
    for (int i = 0; i < now.length; i++) {
      if (!listening[i]) {
        try {
          ((NotificationEmitter) now[i]).addNotificationListener(LISTENER, null, handbacks[i]);
          listening[i] = true;
        } catch (OutOfMemoryError e) {
          // No room: tried again at the next watch.
        } catch (RuntimeException e) {
          // Refused: tried again at the next watch.
        }
      }
    }
  }

  /**
   * Stops listening to every collector: no watch needs their notifications (none watches, or
   * every one watching has heard the heap's end). Then the JVM no longer builds a notification
   * after each collection; in a heap full to the end its notification thread's building was
   * the busiest failing allocator (its every failed allocation costing collections of its own,
   * each of which made another notification). Removing allocates a little (the JDK copies its
   * list of listeners); one the heap has no room for stays until the next call. Never throws.
   *
   * @return true if it listens to none now
   */
  static synchronized boolean stopListening() {
    GarbageCollectorMXBean[] now = collectors;
    boolean none = true;
    for (int i = 0; i < now.length; i++) {
      if (listening[i]) {
        try {
          ((NotificationEmitter) now[i]).removeNotificationListener(LISTENER, null, handbacks[i]);
          listening[i] = false;
        } catch (OutOfMemoryError e) {
          // No room: it stays until the next call.
          none = false;
        } catch (Exception e) {
          // Not there (ListenerNotFoundException): nothing to remove. Caught as Exception, a class
          // loaded long before: a catch clause's own class is loaded when an error first reaches
          // it, which in a full heap fails and replaces the error being handled.
          listening[i] = false;
        }
      }
    }
    return none;
  }

  /**
   * The collections each collector listened to has completed by now, by index: what a watch
   * beginning now compares later notifications with ({@link #isCurrent}). Empty when off.
   */
  static long[] collectionsNow() {
    GarbageCollectorMXBean[] now = collectors;
    if (now.length == 0) {
      return NONE;
    }
    long[] counts = new long[now.length];
    for (int i = 0; i < now.length; i++) {
      counts[i] = now[i].getCollectionCount();
    }
    return counts;
  }

  /**
   * Whether collection number {@code id} of collector {@code collector} completed after a watch
   * that began with {@code collectionsAtStart} ({@link #collectionsNow}): only then may it end
   * that watch's runs. Allocates nothing.
   */
  static boolean isCurrent(long[] collectionsAtStart, int collector, long id) {
    return collector >= collectionsAtStart.length || id > collectionsAtStart[collector];
  }

  /** Whether {@code used} bytes after a full collection, of {@code max}, are over {@code percent}%. */
  static boolean stillFull(long used, long max, int percent) {
    return percent > 0 && used >= max / 100 * percent;
  }

  /** The heap's bytes in use after the collection {@code info} describes. */
  static long heapUsedAfter(GcInfo info, String[] pools) {
    Map<String, MemoryUsage> after = info.getMemoryUsageAfterGc();
    long used = 0;
    for (String pool : pools) {
      MemoryUsage usage = after.get(pool);
      if (usage != null) {
        used += usage.getUsed();
      }
    }
    return used;
  }

  private static void collected(Notification notification, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())
        || !(notification.getUserData() instanceof CompositeData)) {
      return;
    }
    CompositeData data = (CompositeData) notification.getUserData();
    // Read before the whole of it is parsed: most collections are young ones, and this runs after each.
    if (!FULL_COLLECTION.equals(data.get("gcAction"))) {
      return;
    }
    int collector = (Integer) handback;
    long id;
    long used;
    String name;
    try {
      GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(data);
      id = info.getGcInfo().getId();
      used = heapUsedAfter(info.getGcInfo(), heapPools);
      name = info.getGcName();
    } catch (RuntimeException | OutOfMemoryError e) {
      // No room to read it: a full heap's next collection, or a thread's error, will say it.
      return;
    }
    if (!stillFull(used, heapMax, percent)) {
      return;
    }
    String reason = NEARLY_FULL;
    try {
      reason = "the heap ran out (still " + used * 100 / heapMax + "% full after a full collection (" + name
          + "): " + mib(used) + " of " + mib(heapMax)
          + "; the JVM would collect again and again before it threw OutOfMemoryError)";
    } catch (RuntimeException | OutOfMemoryError e) {
      // The constant says enough.
    }
    HeapExhaustion.exhaustedByCollection(reason, collector, id);
  }

  private static String mib(long bytes) {
    return bytes / (1024 * 1024) + " MiB";
  }
}
