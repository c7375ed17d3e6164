package io.weft.transport.spi;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
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
 * collectors' accumulated collection time and the heap in use. A window of at least
 * {@value #WINDOW_MILLIS} ms thrashes if the JVM spent {@value #DEFAULT_PERCENT}% of it or more
 * collecting (system property {@value #PERCENT_PROPERTY}, 1 to 100; 0 turns this off) and the heap
 * is over {@value #HEAP_PERCENT}% full at its end. Two such windows in a row (one may be a burst)
 * and the heap counts as run out, exactly as if a thread had met the error: the reserve is given
 * back (room for the JDK to make a thread again, for the cancels to run) and the runs that were
 * watching when the first window began are aborted.
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
  /** How full the heap must be (in use now, of its maximum) for the time spent collecting to count. */
  static final int HEAP_PERCENT = 85;
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
  private static int percent;
  private static long heapMax;

  private CollectionTimeWatch() {}

  /** Starts the watching thread, once per JVM; does nothing if the JVM cannot tell or it is off. */
  static synchronized void start() {
    if (started) {
      return;
    }
    started = true;
    int p = Integer.getInteger(PERCENT_PROPERTY, DEFAULT_PERCENT);
    long max = Runtime.getRuntime().maxMemory();
    if (p <= 0 || p > 100 || max <= 0 || max == Long.MAX_VALUE) {
      return;
    }
    List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    if (beans.isEmpty()) {
      return;
    }
    collectors = beans.toArray(new GarbageCollectorMXBean[0]);
    percent = p;
    heapMax = max;
    Thread t = new Thread(CollectionTimeWatch::watch, THREAD_NAME);
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /** A watch has begun: wakes the thread if it parked for want of one. Allocates nothing. */
  static void watchBegun() {
    Thread t = thread;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /**
   * The collection time, in milliseconds, of every collector together since the JVM began; -1 if
   * a collector cannot tell. Allocates nothing (the beans' reads are native).
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
   * Whether a window of {@code windowNanos} of which {@code collectingMillis} went to collections,
   * ending with {@code used} bytes of {@code max} in use, says the heap is thrashing: at least
   * {@code percent}% of the window collecting, and the heap over {@value #HEAP_PERCENT}% full.
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
        Runtime runtime = Runtime.getRuntime();
        long used = runtime.totalMemory() - runtime.freeMemory();
        if (collected >= 0 && collectedAtStart >= 0
            && thrashing(window, collected - collectedAtStart, used, heapMax, percent)) {
          if (!thrashed) {
            // One window may be a burst: the second in a row says it.
            thrashed = true;
            thrashingSince = windowStart;
          } else {
            HeapExhaustion.exhaustedByCollectionTime(reason(collected - collectedAtStart, window, used), thrashingSince);
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

  /** The words; the reserve is given back first, for room to make them. */
  private static String reason(long collectingMillis, long windowNanos, long used) {
    HeapExhaustion.releaseReserve();
    try {
      return words(collectingMillis, TimeUnit.NANOSECONDS.toMillis(windowNanos), used, heapMax);
    } catch (RuntimeException | OutOfMemoryError e) {
      return THRASHING;
    }
  }

  /** The reason's words, for a window of {@code windowMillis} of which {@code collectingMillis} went to collections. */
  static String words(long collectingMillis, long windowMillis, long used, long max) {
    StringBuilder words = new StringBuilder(200);
    words.append("the heap ran out (the JVM spent ").append(collectingMillis * 100 / Math.max(1, windowMillis))
        .append("% of the last ").append(windowMillis).append(" ms collecting, with ").append(used / (1024 * 1024))
        .append(" MiB of ").append(max / (1024 * 1024))
        .append(" MiB in use; it would collect again and again before it threw OutOfMemoryError, if ever)");
    return words.toString();
  }
}
