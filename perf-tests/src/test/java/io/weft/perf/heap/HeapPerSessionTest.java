package io.weft.perf.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.perf.internal.VirtualThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class HeapPerSessionTest {

  @Test
  void platformThreadSessionsAllWaitThenAllEnd() throws Exception {
    ParkedSessions kind = ThreadSessions.platform(0);
    assertNull(kind.unavailableReason());
    int before = Thread.activeCount();
    try (ParkedSessions.Parked parked = kind.park(50, 3)) {
      assertTrue(Thread.activeCount() >= before + 50, "threads now: " + Thread.activeCount());
    }
    assertTrue(Thread.activeCount() < before + 50, "threads left: " + Thread.activeCount());
  }

  @Test
  void weighingGivesAFigureForEveryAvailableKind() throws Exception {
    for (ParkedSessions kind : HeapPerSession.kinds(0)) {
      HeapPerSession.Weight weight = HeapPerSession.weigh(kind, 20, 2, 1);
      assertEquals(kind.name(), weight.kind);
      if (kind.unavailableReason() == null) {
        assertFalse(Double.isNaN(weight.heapBytesPerSession), kind.name());
      } else {
        assertTrue(Double.isNaN(weight.heapBytesPerSession));
        assertEquals(kind.unavailableReason(), weight.note);
      }
    }
  }

  @Test
  void virtualThreadKindSaysWhyWhenTheJdkHasNone() {
    ParkedSessions kind = ThreadSessions.virtual();
    if (VirtualThreads.available()) {
      assertNull(kind.unavailableReason());
    } else {
      assertTrue(kind.unavailableReason().contains("JDK 21+"), kind.unavailableReason());
    }
  }

  @Test
  void virtualThreadSessionsAllWaitThenAllEndOnJdk21() throws Exception {
    assumeTrue(VirtualThreads.available(), "needs JDK 21+");
    // park() returns only once all 200 wait; close() returns only once all 200 ended.
    ParkedSessions.Parked parked = ThreadSessions.virtual().park(200, 3);
    parked.close();
  }
}
