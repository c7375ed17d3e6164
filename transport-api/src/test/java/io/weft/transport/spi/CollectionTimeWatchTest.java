package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** When a window's time spent collecting says the heap is thrashing, and the words that say it. */
class CollectionTimeWatchTest {
  private static final long MIB = 1024 * 1024;
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  @Test
  void halfTheWindowCollectingWithTheHeapOver85PercentFullIsThrashing() {
    assertTrue(CollectionTimeWatch.thrashing(SECOND, 500, 86 * MIB, 100 * MIB, 50));
    assertTrue(CollectionTimeWatch.thrashing(2 * SECOND, 1900, 100 * MIB, 100 * MIB, 50));
  }

  @Test
  void lessTimeCollectingIsNot() {
    assertFalse(CollectionTimeWatch.thrashing(SECOND, 499, 95 * MIB, 100 * MIB, 50));
    assertFalse(CollectionTimeWatch.thrashing(2 * SECOND, 999, 95 * MIB, 100 * MIB, 50));
  }

  @Test
  void aHeapWithRoomIsNotThoughItCollectsAllTheTime() {
    assertFalse(CollectionTimeWatch.thrashing(SECOND, 1000, 84 * MIB, 100 * MIB, 50));
  }

  @Test
  void offIsNeverThrashing() {
    assertFalse(CollectionTimeWatch.thrashing(SECOND, 1000, 100 * MIB, 100 * MIB, 0));
    assertFalse(CollectionTimeWatch.thrashing(0L, 1000, 100 * MIB, 100 * MIB, 50));
  }

  @Test
  void theWordsSayHowMuchOfTheWindowWentToCollectingAndHowFullTheHeapWas() {
    assertEquals("the heap ran out (the JVM spent 93% of the last 1040 ms collecting, with 91 MiB of 96 MiB"
        + " of the old generation still in use after its last collection;"
        + " it would collect again and again before it threw OutOfMemoryError, if ever)",
        CollectionTimeWatch.words(968, 1040, 91 * MIB, 96 * MIB));
  }

  /** The collector beans of JDK 17 and 25 (listed with -XX:+UseSerialGC, Parallel, G1, ZGC, generational ZGC, Shenandoah). */
  @Test
  void onlyTheBeansThatTimeStopTheWorldPausesCount() {
    for (String pause : List.of("Copy", "MarkSweepCompact", "PS Scavenge", "PS MarkSweep", "G1 Young Generation",
        "G1 Old Generation", "ZGC Pauses", "ZGC Minor Pauses", "ZGC Major Pauses", "Shenandoah Pauses")) {
      assertEquals(Boolean.TRUE, CollectionTimeWatch.pauses(pause), pause);
    }
    for (String concurrent : List.of("ZGC Cycles", "ZGC Minor Cycles", "ZGC Major Cycles", "Shenandoah Cycles",
        "G1 Concurrent GC")) {
      assertEquals(Boolean.FALSE, CollectionTimeWatch.pauses(concurrent), concurrent);
    }
    // One it does not know (OpenJ9's): the watch is off rather than wrong.
    assertNull(CollectionTimeWatch.pauses("scavenge"));
  }

  @Test
  void theOldGenerationIsThePoolThatSaysOldOrTenuredOrTheOnlyOne() {
    assertEquals(1, CollectionTimeWatch.oldPool(List.of("G1 Eden Space", "G1 Old Gen", "G1 Survivor Space")));
    assertEquals(0, CollectionTimeWatch.oldPool(List.of("Tenured Gen", "Eden Space", "Survivor Space")));
    assertEquals(0, CollectionTimeWatch.oldPool(List.of("PS Old Gen", "PS Survivor Space", "PS Eden Space")));
    assertEquals(0, CollectionTimeWatch.oldPool(List.of("ZGC Old Generation", "ZGC Young Generation")));
    assertEquals(0, CollectionTimeWatch.oldPool(List.of("ZHeap")));
    assertEquals(0, CollectionTimeWatch.oldPool(List.of("Shenandoah")));
    // None, or more than one: the watch is off.
    assertEquals(-1, CollectionTimeWatch.oldPool(List.of("nursery", "other")));
    assertEquals(-1, CollectionTimeWatch.oldPool(List.of("Old A", "Old B")));
  }

  @Test
  void thePropertyIsAPercentOrZeroAndAnythingElseIsRefusedWithItsName() {
    assertEquals(50, CollectionTimeWatch.percent(null));
    assertEquals(0, CollectionTimeWatch.percent("0"));
    assertEquals(100, CollectionTimeWatch.percent(" 100 "));
    for (String wrong : List.of("-1", "101", "fifty", "")) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> CollectionTimeWatch.percent(wrong));
      assertTrue(e.getMessage().startsWith("system property io.weft.transport.gcTimePercent is \"" + wrong + "\""),
          e.getMessage());
    }
  }
}
