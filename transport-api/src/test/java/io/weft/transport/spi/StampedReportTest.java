package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@link HeapExhaustion#report(Throwable, String, long)}: a report stamped ({@link
 * HeapExhaustion#stamp()}) when its error was caught reaches only the watches begun by then, never
 * one begun after the stamp, however late it comes; when none of those is still watching it tells
 * no one and keeps the reserve (a later run's room), and still says the error was the heap's. The
 * callers' side, that each takes its stamp before it looks whether the error is still its run's
 * business, is read in SessionFrame and Scheduler.reportHeap; {@code SessionFrameLateTest}'s late
 * reports block after both, so they do not pin that order.
 */
// The watches are held open by their try blocks, never read there.
@SuppressWarnings("try")
class StampedReportTest {
  private static OutOfMemoryError heapSpace() {
    return new OutOfMemoryError("Java heap space");
  }

  @Test
  void aStampedReportReachesTheWatchesBegunByItsStampAndNoLaterOne() {
    List<String> early = new CopyOnWriteArrayList<>();
    List<String> late = new CopyOnWriteArrayList<>();
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(early::add)) {
      long stamp = HeapExhaustion.stamp();
      try (HeapExhaustion.Watch b = HeapExhaustion.watch(late::add)) {
        assertTrue(HeapExhaustion.report(heapSpace(), "a stamped test", stamp));
      }
    }
    assertEquals(1, early.size(), "the watch begun by the stamp: " + early);
    assertTrue(early.get(0).contains("Java heap space") && early.get(0).contains("a stamped test"), early.get(0));
    assertEquals(List.of(), late, "a watch begun after the stamp heard the report");
  }

  @Test
  void aStampedReportWhoseWatchesHaveAllEndedTellsNoOneAndKeepsTheReserve() throws Exception {
    List<String> ended = new CopyOnWriteArrayList<>();
    List<String> later = new CopyOnWriteArrayList<>();
    long stamp;
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(ended::add)) {
      stamp = HeapExhaustion.stamp();
    }
    try (HeapExhaustion.Watch b = HeapExhaustion.watch(later::add)) {
      // The watch takes the reserve back if an earlier report let it go.
      assertNotNull(reserve(), "a watch begun with room holds the reserve");
      assertTrue(HeapExhaustion.report(heapSpace(), "a stamped test", stamp), "the heap's error, told or not");
      assertNotNull(reserve(), "a report that told no one let the reserve go");
    }
    assertEquals(List.of(), ended);
    assertEquals(List.of(), later, "a watch begun after the stamp heard the report");
  }

  @Test
  void anErrorThatIsNotTheHeapsIsNoReport() {
    List<String> told = new CopyOnWriteArrayList<>();
    try (HeapExhaustion.Watch a = HeapExhaustion.watch(told::add)) {
      long stamp = HeapExhaustion.stamp();
      assertFalse(HeapExhaustion.report(new OutOfMemoryError("Direct buffer memory"), "a stamped test", stamp));
    }
    assertEquals(List.of(), told);
  }

  private static Object reserve() throws ReflectiveOperationException {
    Field f = HeapExhaustion.class.getDeclaredField("reserve");
    f.setAccessible(true);
    return f.get(null);
  }
}
