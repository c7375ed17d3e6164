package io.weft.transport.spi;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The heap running out with no {@link OutOfMemoryError} and no notification to say it: a JVM
 * whose live data nearly fills the heap can collect again and again for minutes (seen on JDK 25
 * with G1: full collections every few milliseconds, each leaving 91 MiB of 96 MiB, just under
 * {@link CollectionUsageWatch}'s line), and in such a heap the collectors' notifications stop
 * coming (the JVM finds no room to make them), and the threads that would meet the error may be
 * gone (the virtual threads' carriers, dead of it in the JDK's own code, so that no session ever
 * runs again to meet it).
 *
 * <p>So a thread of its own ({@value #THREAD_NAME}, a daemon, started with the first watch) looks,
 * every {@value #POLL_MILLIS} ms while a run is watching, at what needs no heap to read: the
 * collectors' accumulated stop-the-world pause time. A window of at least {@value #WINDOW_MILLIS}
 * ms thrashes if the JVM spent {@value #DEFAULT_PERCENT}% of it or more in pauses (system property
 * {@value #PERCENT_PROPERTY}, 1 to 100; 0 turns this off; any other value is refused when the first
 * run starts) and, at its end, the old generation is over {@value #HEAP_PERCENT}% full of what
 * the last collection left in it: collections that recover little. Two such windows in a row (one
 * may be a burst) and the heap counts as run out, exactly as if a thread had met the error: the
 * reserve is given back (room for the JDK to make a thread again, for the cancels to run) and the
 * runs that were watching when the first window began are aborted.
 *
 * <p>Only pauses count: the concurrent collectors' "Cycles" beans (ZGC, Shenandoah) and G1's
 * "G1 Concurrent GC" (JDK 21 and later) time work done beside the application, which can fill a
 * whole window (generational ZGC's minor and major cycles overlap, more than the window) in a run
 * that is merely busy. The collectors it knows are listed in {@link #PAUSES} and
 * {@link #CONCURRENT} (Serial, Parallel, G1, ZGC and generational ZGC, Shenandoah, as JDK 17 and 25
 * name them); with a collector of any other name the watch is off. On ZGC and Shenandoah the
 * pauses stay short however full the heap (their heap's end shows as allocation stalls, not
 * pauses), so there the watch in effect never fires and the heap's end is told by the error or by
 * {@link CollectionUsageWatch}.
 *
 * <p>A window is compared with itself only: the fraction of its time spent in collections, both
 * measured on the same clock, stays the same when the machine is loaded (the pauses and the time
 * between them stretch alike). A JVM that is merely busy collecting a heap with room spends far
 * less than half of its time in pauses, and one whose heap is nearly full but collecting rarely
 * is not thrashing: only both together count.
 */
final class CollectionTimeWatch {
  static final String PERCENT_PROPERTY = "io.weft.transport.gcTimePercent";
  static final int DEFAULT_PERCENT = 50;
  /**
   * How full the old generation must be after the last collection (of its maximum, or of the
   * heap's if it has none) for the time spent collecting to count.
   */
  static final int HEAP_PERCENT = 85;
  /** The collector beans whose collection time is stop-the-world pauses (JDK 17 and 25's names). */
  static final Set<String> PAUSES = Set.of("Copy", "MarkSweepCompact", "PS Scavenge", "PS MarkSweep",
      "G1 Young Generation", "G1 Old Generation", "ZGC Pauses", "ZGC Minor Pauses", "ZGC Major Pauses",
      "Shenandoah Pauses");
  /** The collector beans whose collection time is concurrent work, not counted. */
  static final Set<String> CONCURRENT = Set.of("ZGC Cycles", "ZGC Minor Cycles", "ZGC Major Cycles",
      "Shenandoah Cycles", "G1 Concurrent GC");
  static final long POLL_MILLIS = 100;
  static final long WINDOW_MILLIS = 1000;
  static final String THREAD_NAME = "weft-heap-watch";

  /** The reason when the words do not fit; made as the class loads (see CollectionUsageWatch). */
  private static final String THRASHING;

  static {
    THRASHING = "the heap ran out (the JVM spent most of its time collecting, the heap nearly full)";
    // Once with room: the first run of the words' code allocates more than the words.
    words(1, 1, 1, 1);
  }

  private static boolean started;
  private static Thread thread;
  private static GarbageCollectorMXBean[] collectors;
  private static MemoryPoolMXBean oldPool;
  private static int percent;
  private static long heapMax;

  private CollectionTimeWatch() {}

  /**
   * Starts the watching thread, once per JVM; does nothing if it is off or the JVM's collectors
   * are not ones it can read right.
   *
   * @throws IllegalStateException if the property is set to anything but a whole number from 0 to
   *     100 (each call says so again, so that no run goes ahead without the watch it asked for)
   */
  static synchronized void start() {
    int p = percent(System.getProperty(PERCENT_PROPERTY));
    if (started) {
      return;
    }
    started = true;
    long max = Runtime.getRuntime().maxMemory();
    if (p == 0 || max <= 0 || max == Long.MAX_VALUE) {
      return;
    }
    List<GarbageCollectorMXBean> pauses = new ArrayList<>();
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      Boolean pause = pauses(bean.getName());
      if (pause == null) {
        return;
      }
      if (pause) {
        pauses.add(bean);
      }
    }
    List<MemoryPoolMXBean> heap = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        heap.add(pool);
        names.add(pool.getName());
      }
    }
    int old = oldPool(names);
    if (pauses.isEmpty() || old < 0 || heap.get(old).getCollectionUsage() == null) {
      return;
    }
    collectors = pauses.toArray(new GarbageCollectorMXBean[0]);
    oldPool = heap.get(old);
    percent = p;
    heapMax = max;
    // Its own thread, not the first run's: no context class loader or inheritable thread-local
    // of whichever caller happened to start it.
    Thread t = new Thread(null, CollectionTimeWatch::watch, THREAD_NAME, 0, false);
    t.setContextClassLoader(null);
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /**
   * The property's value: {@value #DEFAULT_PERCENT} if unset.
   *
   * @throws IllegalStateException if it is not a whole number from 0 to 100
   */
  static int percent(String property) {
    if (property == null) {
      return DEFAULT_PERCENT;
    }
    try {
      int p = Integer.parseInt(property.trim());
      if (p >= 0 && p <= 100) {
        return p;
      }
    } catch (NumberFormatException e) {
      // Said below.
    }
    throw new IllegalStateException("system property " + PERCENT_PROPERTY + " is \"" + property
        + "\": it must be a whole number from 1 to 100 (the percent of a second spent in collection pauses"
        + " that, with the old generation nearly full, counts as the heap run out), or 0 to turn the watch off");
  }

  /**
   * Whether a collector bean named {@code name} times stop-the-world pauses ({@code true}),
   * concurrent work ({@code false}), or is one this watch does not know ({@code null}).
   */
  static Boolean pauses(String name) {
    return PAUSES.contains(name) ? Boolean.TRUE : CONCURRENT.contains(name) ? Boolean.FALSE : null;
  }

  /**
   * Which of the heap's memory pools, named {@code names}, holds what survives collections: the
   * one whose name says old or tenured, or the only one; -1 if none can be told.
   */
  static int oldPool(List<String> names) {
    int found = -1;
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (name.contains("Old") || name.contains("Tenured")) {
        if (found >= 0) {
          return -1;
        }
        found = i;
      }
    }
    return found >= 0 ? found : names.size() == 1 ? 0 : -1;
  }

  /** A watch has begun: wakes the thread if it parked for want of one. Allocates nothing. */
  static void watchBegun() {
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /**
   * The collection time, in milliseconds, of every pause collector together since the JVM began;
   * -1 if a collector cannot tell. Allocates nothing (the beans' reads are native).
   */
  static long collectionMillis(GarbageCollectorMXBean[] beans) {
    long total = 0;
    for (GarbageCollectorMXBean bean : beans) {
      long t = bean.getCollectionTime();
      if (t < 0) {
        return -1;
      }
      total += t;
    }
    return total;
  }

  /**
   * Whether a window of {@code windowNanos} of which {@code collectingMillis} went to collection
   * pauses, ending with {@code used} bytes of {@code max} left in the old generation by the last
   * collection, says the heap is thrashing: at least {@code percent}% of the window in pauses, and
   * the old generation over {@value #HEAP_PERCENT}% full of what collections did not free.
   */
  static boolean thrashing(long windowNanos, long collectingMillis, long used, long max, int percent) {
    return percent > 0 && windowNanos > 0
        && TimeUnit.MILLISECONDS.toNanos(collectingMillis) * 100 >= windowNanos * percent
        && used >= max / 100 * HEAP_PERCENT;
  }

  private static void watch() {
    long windowStart = System.nanoTime();
    long collectedAtStart = collectionMillis(collectors);
    // Whether the last window thrashed, and where it began.
    boolean thrashed = false;
    long thrashingSince = 0L;
    for (;;) {
      try {
        if (!HeapExhaustion.anyWatching()) {
          // No run to end: wait for one (watchBegun), then a window from there.
          LockSupport.park(CollectionTimeWatch.class);
          windowStart = System.nanoTime();
          collectedAtStart = collectionMillis(collectors);
          thrashed = false;
          continue;
        }
        LockSupport.parkNanos(CollectionTimeWatch.class, TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
        long now = System.nanoTime();
        long window = now - windowStart;
        if (window < TimeUnit.MILLISECONDS.toNanos(WINDOW_MILLIS)) {
          continue;
        }
        long collected = collectionMillis(collectors);
        long collecting = collected - collectedAtStart;
        // The old generation is read only when the pauses alone would say it (the read makes a
        // MemoryUsage): whether the collections recover little; and only while a run watching has
        // not heard the heap's end yet. Once every one has (aborted, they keep the first reason),
        // a verdict would tell no one anything, and in a heap full to the end each read fails
        // after collections of its own, through the aborted runs' close waits.
        long[] left = collected >= 0 && collectedAtStart >= 0 && thrashing(window, collecting, 1L, 1L, percent)
            && HeapExhaustion.anyUnheard() ? leftAfterCollection() : null;
        if (left != null && thrashing(window, collecting, left[0], left[1], percent)) {
          if (!thrashed) {
            // One window may be a burst: the second in a row says it.
            thrashed = true;
            thrashingSince = windowStart;
          } else {
            if (HeapExhaustion.anyWatchingSince(thrashingSince)) {
              HeapExhaustion.exhaustedByCollectionTime(reason(collecting, window, left), thrashingSince);
            }
            thrashed = false;
          }
        } else {
          thrashed = false;
        }
        windowStart = now;
        collectedAtStart = collected;
      } catch (RuntimeException | Error e) {
        // Never die of it: the next window looks again.
        windowStart = System.nanoTime();
        collectedAtStart = -1;
        thrashed = false;
      }
    }
  }

  /**
   * What the last collection left in the old generation and the most it can hold, in bytes (the
   * heap's maximum if it has none); all of it, if there is no room to read it: a heap that cannot
   * make a MemoryUsage is full.
   */
  private static long[] leftAfterCollection() {
    try {
      MemoryUsage usage = oldPool.getCollectionUsage();
      long max = usage.getMax() > 0 ? usage.getMax() : heapMax;
      return new long[] {usage.getUsed(), max};
    } catch (OutOfMemoryError e) {
      return FULL;
    }
  }

  /** {@link #leftAfterCollection} with no room to read it; made as the class loads. */
  private static final long[] FULL = {1L, 1L};

  /** The words; the reserve is given back first, for room to make them. */
  private static String reason(long collectingMillis, long windowNanos, long[] left) {
    HeapExhaustion.releaseReserve();
    if (left == FULL) {
      return THRASHING;
    }
    try {
      return words(collectingMillis, TimeUnit.NANOSECONDS.toMillis(windowNanos), left[0], left[1]);
    } catch (RuntimeException | OutOfMemoryError e) {
      return THRASHING;
    }
  }

  /**
   * The reason's words, for a window of {@code windowMillis} of which {@code collectingMillis} went
   * to collection pauses, with {@code used} bytes of the old generation's {@code max} left by the
   * last collection.
   */
  static String words(long collectingMillis, long windowMillis, long used, long max) {
    StringBuilder words = new StringBuilder(240);
    words.append("the heap ran out (the JVM spent ").append(collectingMillis * 100 / Math.max(1, windowMillis))
        .append("% of the last ").append(windowMillis).append(" ms collecting, with ").append(used / (1024 * 1024))
        .append(" MiB of ").append(max / (1024 * 1024))
        .append(" MiB of the old generation still in use after its last collection;"
            + " it would collect again and again before it threw OutOfMemoryError, if ever)");
    return words.toString();
  }
}
