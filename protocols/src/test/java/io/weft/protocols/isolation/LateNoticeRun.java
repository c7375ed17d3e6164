package io.weft.protocols.isolation;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.weft.transport.spi.HeapExhaustion;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * For {@link LateCollectionNoticeTest}'s child JVM (threshold {@value #PERCENT}%): a full
 * collection's notice held back until a watch has begun after it, as the JVM's notification
 * thread does when it is slow to run. The JVM calls a collector's listeners one after another, in
 * the order they were added, on that one thread; so a listener added before Weft's (the gate)
 * holds Weft's back, and one added after Weft's (the witness) sees when Weft's has returned.
 * <ol>
 *   <li>the gate and the first watch (which begins Weft's listening), then the witness;
 *   <li>the heap filled a step at a time, each step followed by a full collection, until one leaves
 *       it over the threshold; the gate holds that one's notice;
 *   <li>what filled the heap let go, and the second watch begun; the gate opened, the witness
 *       awaited: the first watch must have heard the collection, the second not;
 *   <li>the heap filled again until a full collection leaves it over the threshold: the second
 *       watch must hear that one.
 * </ol>
 * Prints what each watch heard; exits 0.
 */
public final class LateNoticeRun {
  static final int PERCENT = 80;
  private static final int STEP_BYTES = 1024 * 1024;
  private static final int PIECE = 16 * 1024;

  private LateNoticeRun() {}

  public static void main(String[] args) throws Exception {
    String[] heap = heapPools();
    long max = Runtime.getRuntime().maxMemory();
    long threshold = max / 100 * PERCENT;
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch open = new CountDownLatch(1);
    boolean[] armed = {true};
    List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    for (GarbageCollectorMXBean collector : collectors) {
      ((NotificationEmitter) collector).addNotificationListener((n, h) -> {
        GcInfo info = info(n);
        if (info != null && armed[0] && used(info, heap) >= threshold) {
          armed[0] = false;
          held.countDown();
          await(open);
        }
      }, null, null);
    }
    Heard first = new Heard();
    HeapExhaustion.Watch firstWatch = HeapExhaustion.watch(first::heard);
    long[] lastSeen = new long[collectors.size()];
    Object seen = new Object();
    for (int i = 0; i < collectors.size(); i++) {
      int index = i;
      ((NotificationEmitter) collectors.get(i)).addNotificationListener((n, h) -> {
        if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
          long id = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcInfo().getId();
          synchronized (seen) {
            lastSeen[index] = id;
            seen.notifyAll();
          }
        }
      }, null, null);
    }

    List<byte[]> filling = new ArrayList<>();
    int steps = fillUntilOverThreshold(filling, heap, threshold);
    held.await();
    long[] crossed = counts(collectors);
    filling = null;
    Heard second = new Heard();
    HeapExhaustion.Watch secondWatch = HeapExhaustion.watch(second::heard);
    open.countDown();
    // Every collection up to the crossing one has been handed to Weft's listener, and it returned.
    synchronized (seen) {
      for (int i = 0; i < lastSeen.length; i++) {
        while (lastSeen[i] < crossed[i]) {
          seen.wait();
        }
      }
    }
    System.out.println("filled " + steps + " steps");
    System.out.println("before the notice: first heard " + first.said() + "; second heard " + second.said());

    List<byte[]> again = new ArrayList<>();
    fillUntilOverThreshold(again, heap, threshold);
    second.await();
    System.out.println("after a later full collection: second heard " + second.said());
    again.clear();
    firstWatch.close();
    secondWatch.close();
    System.exit(0);
  }

  /** Fills {@code into} a step at a time with a full collection after each, until one leaves the heap over {@code threshold}. */
  static int fillUntilOverThreshold(List<byte[]> into, String[] heap, long threshold) {
    int steps = 0;
    for (;;) {
      for (int made = 0; made < STEP_BYTES; made += PIECE) {
        into.add(new byte[PIECE]);
      }
      steps++;
      long[] before = counts(ManagementFactory.getGarbageCollectorMXBeans());
      System.gc();
      if (lastCollectionUsed(before, heap) >= threshold) {
        return steps;
      }
    }
  }

  /** The heap's use after the collection that the collector whose count moved since {@code before} made last. */
  private static long lastCollectionUsed(long[] before, String[] heap) {
    List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    long used = 0;
    for (int i = 0; i < collectors.size(); i++) {
      if (collectors.get(i).getCollectionCount() > before[i]) {
        GcInfo info = ((com.sun.management.GarbageCollectorMXBean) collectors.get(i)).getLastGcInfo();
        used = Math.max(used, used(info, heap));
      }
    }
    return used;
  }

  private static long[] counts(List<GarbageCollectorMXBean> collectors) {
    long[] counts = new long[collectors.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = collectors.get(i).getCollectionCount();
    }
    return counts;
  }

  /** A full collection's details, or null for any other notice. */
  private static GcInfo info(Notification notification) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
      return null;
    }
    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    return "end of major GC".equals(info.getGcAction()) ? info.getGcInfo() : null;
  }

  private static long used(GcInfo info, String[] heap) {
    long used = 0;
    for (String pool : heap) {
      MemoryUsage usage = info.getMemoryUsageAfterGc().get(pool);
      if (usage != null) {
        used += usage.getUsed();
      }
    }
    return used;
  }

  static String[] heapPools() {
    List<String> names = new ArrayList<>();
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        names.add(pool.getName());
      }
    }
    return names.toArray(new String[0]);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What a watch heard: nothing yet, or the reasons, in order. */
  static final class Heard {
    private final List<String> reasons = new ArrayList<>();
    private final CountDownLatch any = new CountDownLatch(1);

    synchronized void heard(String reason) {
      reasons.add(reason);
      any.countDown();
    }

    synchronized String said() {
      return reasons.isEmpty() ? "nothing" : reasons.size() + ": " + reasons.get(0);
    }

    void await() throws InterruptedException {
      any.await();
    }
  }
}
