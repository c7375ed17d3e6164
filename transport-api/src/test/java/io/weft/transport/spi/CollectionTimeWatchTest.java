package io.weft.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    assertEquals("the heap ran out (the JVM spent 93% of the last 1040 ms collecting, with 91 MiB of 96 MiB in use;"
        + " it would collect again and again before it threw OutOfMemoryError, if ever)",
        CollectionTimeWatch.words(968, 1040, 91 * MIB, 96 * MIB));
  }
}
