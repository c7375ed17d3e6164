package io.weft.transport.spi;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The heap running out without an {@link OutOfMemoryError}: a JVM whose live data nearly fills
 * the heap collects again and again, each collection freeing a little, and may go on so for
 * minutes before (or instead of) throwing. The old generation's usage right after a collection
 * says it: over {@value #DEFAULT_PERCENT}% of its maximum (system property
 * {@value #PERCENT_PROPERTY}, 1 to 100; 0 turns this off), the heap counts as exhausted, exactly
 * as if a thread had met the error.
 *
 * <p>Read through the JVM's collection-usage threshold on each heap pool that has a usage
 * threshold (the old generation: eden and survivor spaces have none, and are empty or
 * legitimately full after a collection), and its notification, which the JVM sends on its own
 * notification thread after the collection that crosses it. Only collections that the JVM
 * reports for that pool count (with G1: mixed and full collections).
 */
final class CollectionUsageWatch {
  static final String PERCENT_PROPERTY = "io.weft.transport.heapFullAfterCollectionPercent";
  static final int DEFAULT_PERCENT = 95;

  /**
   * The reason when the words do not fit. Not a constant, so that its literal is made as the
   * class loads: a literal's first use may allocate it, and here that is when the heap is full.
   */
  private static final String NEARLY_FULL;

  static {
    NEARLY_FULL = "the heap ran out (its old generation still nearly full after a collection)";
  }

  private static boolean installed;

  private CollectionUsageWatch() {}

  /** Sets the thresholds and listens, once per JVM; does nothing if the JVM cannot tell. */
  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    int percent = Integer.getInteger(PERCENT_PROPERTY, DEFAULT_PERCENT);
    if (percent <= 0 || percent > 100) {
      return;
    }
    boolean any = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() != MemoryType.HEAP || !pool.isUsageThresholdSupported()
          || !pool.isCollectionUsageThresholdSupported()) {
        continue;
      }
      long max = pool.getUsage().getMax();
      if (max <= 0) {
        continue;
      }
      pool.setCollectionUsageThreshold(max / 100 * percent);
      any = true;
    }
    if (any && ManagementFactory.getMemoryMXBean() instanceof NotificationEmitter) {
      ((NotificationEmitter) ManagementFactory.getMemoryMXBean())
          .addNotificationListener(CollectionUsageWatch::collected, null, null);
    }
  }

  private static void collected(Notification notification, Object handback) {
    if (!MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED.equals(notification.getType())) {
      return;
    }
    String reason = NEARLY_FULL;
    try {
      MemoryNotificationInfo info = MemoryNotificationInfo.from((CompositeData) notification.getUserData());
      MemoryUsage usage = info.getUsage();
      reason = "the heap ran out (" + info.getPoolName() + " still " + usage.getUsed() * 100 / usage.getMax()
          + "% full after a collection: " + mib(usage.getUsed()) + " of " + mib(usage.getMax())
          + "; the JVM would collect again and again before it threw OutOfMemoryError)";
    } catch (RuntimeException | OutOfMemoryError e) {
      // The constant says enough.
    }
    HeapExhaustion.exhausted(reason);
  }

  private static String mib(long bytes) {
    return bytes / (1024 * 1024) + " MiB";
  }
}
