package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.GcInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the collection watch judges a collection, with this JVM's own collectors and collections
 * (the heap-filling behaviour is {@code HeapFullAfterCollectionTest}'s and
 * {@code LateCollectionNoticeTest}'s, in child JVMs).
 */
class CollectionUsageWatchTest {

  @Test
  void aCollectionConcernsOnlyTheWatchesThatBeganBeforeItCompleted() {
    CollectionUsageWatch.install();
    List<GarbageCollectorMXBean> beans = ManagementFactory.getGarbageCollectorMXBeans();
    long[] before = CollectionUsageWatch.collectionsNow();
    assertEquals(beans.size(), before.length, "every collector of this JVM is listened to");
    System.gc();
    long[] after = CollectionUsageWatch.collectionsNow();
    int collector = -1;
    for (int i = 0; i < after.length && collector < 0; i++) {
      if (after[i] > before[i]) {
        collector = i;
      }
    }
    assertTrue(collector >= 0, "System.gc() ran no collection");
    // The number a notification carries is the collector's count with that collection in it.
    GcInfo last = ((com.sun.management.GarbageCollectorMXBean) beans.get(collector)).getLastGcInfo();
    long id = last.getId();
    assertTrue(id > before[collector] && id <= after[collector], id + " not in (" + before[collector] + ", "
        + after[collector] + "]");
    assertTrue(CollectionUsageWatch.isCurrent(before, collector, id), "a watch begun before it hears it");
    assertFalse(CollectionUsageWatch.isCurrent(after, collector, id), "a watch begun after it does not");
    assertFalse(CollectionUsageWatch.isCurrent(CollectionUsageWatch.collectionsNow(), collector, id));
  }

  @Test
  void theHeapAfterAFullCollectionIsTheSumOfItsPoolsAndCountsFromTheThresholdOn() {
    System.gc();
    GcInfo full = null;
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      GcInfo info = ((com.sun.management.GarbageCollectorMXBean) bean).getLastGcInfo();
      if (info != null && (full == null || info.getEndTime() > full.getEndTime())) {
        full = info;
      }
    }
    String[] heap = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == java.lang.management.MemoryType.HEAP).map(p -> p.getName()).toArray(String[]::new);
    long used = CollectionUsageWatch.heapUsedAfter(full, heap);
    long max = Runtime.getRuntime().maxMemory();
    assertTrue(used > 0 && used < max, used + " of " + max);
    long threshold = max / 100 * 95;
    assertTrue(CollectionUsageWatch.stillFull(threshold, max, 95));
    assertFalse(CollectionUsageWatch.stillFull(threshold - 1, max, 95));
    assertFalse(CollectionUsageWatch.stillFull(max, max, 0), "0 turns it off");
  }
}
