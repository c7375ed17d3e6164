package io.weft.protocols.isolation;

import io.weft.transport.spi.HeapExhaustion;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * For {@link AfterEveryRunHeardTest}'s child JVM: a watch, as a run's, told of the heap's end by a
 * report, then what Weft does while the aborted run would wait for its sessions. Two cases:
 * <ul>
 *   <li>{@code reports room} or {@code reports full}: the watch's hearing fills the heap until not
 *       even an empty array fits (as the sessions still running in an exhausted heap take the room
 *       the reserve gave back), then {@value #REPORTS} more reports of the error follow, as the
 *       failing sessions of a run make them. Prints "told: true, collections during 20 reports: N":
 *       each allocation that finds no room costs collections. With {@code full} the heap is filled
 *       before the first report too, as when a session first meets the heap's end.
 *   <li>{@code heap-watch}: the JVM then collects (System.gc) until its collectors have spent
 *       {@value #COLLECTING_MILLIS} ms in all, run with a collection-time threshold of 1% so that
 *       every window of {@code weft-heap-watch} would look at the old generation. Prints "heap watch
 *       allocated N bytes while the JVM collected for M ms": its look makes a MemoryUsage.
 * </ul>
 */
public final class AfterEveryRunHeardRun {
  static final int REPORTS = 20;
  static final long COLLECTING_MILLIS = 3_000;
  /** Made with room: a report's error, as a session would meet it. */
  private static final OutOfMemoryError MET = new OutOfMemoryError("Java heap space");
  private static final String WHAT;
  private static volatile String told;
  private static volatile boolean fillWhenTold;

  static {
    WHAT = "the probe";
  }

  private AfterEveryRunHeardRun() {}

  public static void main(String[] args) throws Exception {
    GarbageCollectorMXBean[] collectors =
        ManagementFactory.getGarbageCollectorMXBeans().toArray(new GarbageCollectorMXBean[0]);
    try (HeapExhaustion.Watch watch = HeapExhaustion.watch(AfterEveryRunHeardRun::heard)) {
      if (args[0].equals("reports")) {
        reports(collectors, args[1].equals("full"));
      } else {
        heapWatch(collectors);
      }
    }
  }

  private static void reports(GarbageCollectorMXBean[] collectors, boolean full) {
    fillWhenTold = true;
    if (full) {
      NoRoomReportRun.fillToTheLastByte();
    }
    HeapExhaustion.report(MET, WHAT);
    long before = collections(collectors);
    for (int i = 0; i < REPORTS; i++) {
      HeapExhaustion.report(MET, WHAT);
    }
    long during = collections(collectors) - before;
    NoRoomReportRun.letGo();
    System.out.println("told: " + (told != null) + ", collections during " + REPORTS + " reports: " + during);
  }

  @SuppressWarnings("deprecation") // Thread.getId: threadId() is JDK 19 and later
  private static void heapWatch(GarbageCollectorMXBean[] collectors) {
    HeapExhaustion.report(MET, WHAT);
    Thread watcher = null;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().equals(HeapExhaustion.WATCH_THREAD_NAME)) {
        watcher = t;
      }
    }
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getThreadAllocatedBytes(watcher.getId());
    long start = collectionMillis(collectors);
    long collected = 0;
    while (collected < COLLECTING_MILLIS) {
      System.gc();
      collected = collectionMillis(collectors) - start;
    }
    long allocated = threads.getThreadAllocatedBytes(watcher.getId()) - before;
    System.out.println("told: " + (told != null) + ", heap watch allocated " + allocated
        + " bytes while the JVM collected for " + collected + " ms");
  }

  /** The first hearing fills the heap if asked; the later ones allocate nothing. */
  private static void heard(String reason) {
    if (told == null) {
      told = reason;
      if (fillWhenTold) {
        NoRoomReportRun.fillToTheLastByte();
      }
    }
  }

  /** The collections made so far, by every collector. Allocates nothing. */
  private static long collections(GarbageCollectorMXBean[] collectors) {
    long sum = 0;
    for (int i = 0; i < collectors.length; i++) {
      sum += collectors[i].getCollectionCount();
    }
    return sum;
  }

  private static long collectionMillis(GarbageCollectorMXBean[] collectors) {
    long sum = 0;
    for (int i = 0; i < collectors.length; i++) {
      sum += collectors[i].getCollectionTime();
    }
    return sum;
  }
}
