package io.weft.continuations;

import io.weft.transport.spi.HeapExhaustion;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * {@link CollectionNoticeTest}'s child: how much the JVM's notification thread allocates for
 * {@value #COLLECTIONS} full collections made after a watch no longer needs the collectors'
 * notifications (argument {@code ended}: the watch was closed; {@code heard}: it heard a report
 * and is still open), against what it allocates for one notification; and ({@code again}) for
 * those made once a new watch has begun after such a stop (it must hear them again).
 *
 * <p>The thread's bytes are read on the thread itself, in a listener of the child's own (the
 * markers) added only after the collections, which takes as markers only notifications of
 * collections made after it was added: notifications are built and sent in order on that one
 * thread, so by the first marker's hearing every notification of those collections has been
 * built. Prints {@code before-marker B per-notice N} (B: the bytes from just before the
 * collections to the first marker, that marker's build included; N: the fewest bytes between two
 * later markers, one notification's build and hearing), or a line beginning {@code FAILED}.
 */
public final class CollectionNoticeRun {
  static final int COLLECTIONS = 20;
  private static final String NOTIFICATION_THREAD = "Notification Thread";
  private static final long MARKER_WAIT_SECONDS = 60;

  private CollectionNoticeRun() {}

  public static void main(String[] args) throws Exception {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long notifier = -1;
    for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
      if (NOTIFICATION_THREAD.equals(info.getThreadName())) {
        notifier = info.getThreadId();
      }
    }
    if (notifier < 0) {
      System.out.println("FAILED no thread named " + NOTIFICATION_THREAD);
      return;
    }
    BlockingQueue<Long> heard = new LinkedBlockingQueue<>();
    // A marker is the notification of a collection made after its listener was added: notifications
    // still queued from before (the 20 collections', when a watch listens) are let pass.
    NotificationListener marker = (notification, handback) -> {
      long bytes = threads.getCurrentThreadAllocatedBytes();
      CompositeData gcInfo = (CompositeData) ((CompositeData) notification.getUserData()).get("gcInfo");
      if ((Long) gcInfo.get("id") > markFrom[(Integer) handback]) {
        heard.add(bytes);
      }
    };
    // Once before, then taken off: the JDK's first notification makes its types (a one-time cost
    // that must not count as the later markers' or the collections').
    markFrom = counts();
    listen(marker, true);
    System.gc();
    if (heard.poll(MARKER_WAIT_SECONDS, TimeUnit.SECONDS) == null) {
      System.out.println("FAILED no notification of the warm-up collection");
      return;
    }
    listen(marker, false);
    HeapExhaustion.Watch watch = HeapExhaustion.watch(reason -> System.out.println("heard: " + reason));
    if (args[0].equals("ended")) {
      watch.close();
    } else {
      HeapExhaustion.report(new OutOfMemoryError("Java heap space"), "a test");
    }
    if (args[0].equals("again")) {
      watch.close();
      watch = HeapExhaustion.watch(reason -> System.out.println("heard again: " + reason));
    }
    long before = threads.getThreadAllocatedBytes(notifier);
    for (int i = 0; i < COLLECTIONS; i++) {
      System.gc();
    }
    heard.clear();
    markFrom = counts();
    listen(marker, true);
    List<Long> marks = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      System.gc();
      Long bytes = heard.poll(MARKER_WAIT_SECONDS, TimeUnit.SECONDS);
      if (bytes == null) {
        System.out.println("FAILED no notification of marker collection " + i);
        return;
      }
      marks.add(bytes);
      // One marker per collection: a collection with two notifications leaves its second here.
      heard.clear();
    }
    long perNotice = Math.min(marks.get(1) - marks.get(0), marks.get(2) - marks.get(1));
    System.out.println("before-marker " + (marks.get(0) - before) + " per-notice " + perNotice);
    watch.close();
  }

  /** Each collector's count of collections by now, by index: markers come after them. */
  private static volatile long[] markFrom = new long[0];

  private static long[] counts() {
    List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    long[] counts = new long[collectors.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = collectors.get(i).getCollectionCount();
    }
    return counts;
  }

  private static void listen(NotificationListener listener, boolean on) throws Exception {
    List<GarbageCollectorMXBean> collectors = ManagementFactory.getGarbageCollectorMXBeans();
    for (int i = 0; i < collectors.size(); i++) {
      if (on) {
        ((NotificationEmitter) collectors.get(i)).addNotificationListener(listener, null, Integer.valueOf(i));
      } else {
        ((NotificationEmitter) collectors.get(i)).removeNotificationListener(listener);
      }
    }
  }
}
