package io.weft.perf.heap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.transport.spi.VirtualThreads;
import org.junit.jupiter.api.Test;
class HeapPerSessionTest {

  @Test
  void platformThreadSessionsAllWaitThenAllEnd() throws Exception {
    ParkedSessions kind = ThreadSessions.platform(0);
    assertNull(kind.unavailableReason());
    // Counted by name: other tests' threads in this JVM may still be ending meanwhile.
    assertEquals(0, parkedSessionThreads());
    try (ParkedSessions.Parked parked = kind.park(50, 3)) {
      assertEquals(50, parkedSessionThreads());
    }
    assertEquals(0, parkedSessionThreads(), "threads left after close");
  }

  private static long parkedSessionThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().equals("parked-session"))
        .count();
  }

  @Test
  void weighingGivesAFigureForEveryAvailableKind() throws Exception {
    for (ParkedSessions kind : HeapPerSession.kinds(0)) {
      HeapPerSession.Weight weight = HeapPerSession.weigh(kind, 20, 2, 1);
      assertEquals(kind.name(), weight.kind());
      if (kind.unavailableReason() == null) {
        assertFalse(Double.isNaN(weight.heapBytesPerSession()), kind.name());
      } else {
        assertTrue(Double.isNaN(weight.heapBytesPerSession()));
        assertEquals(kind.unavailableReason(), weight.note());
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
    // close() returns once every thread has ended (it joins them).
    try (ParkedSessions.Parked parked = ThreadSessions.virtual().park(200, 3)) {
      assertEquals(200, parked.waiting());
    }
  }

  @Test
  void runnerKindsParkEverySessionThenLetThemAllSucceed() throws Exception {
    for (ParkedSessions kind : RunnerSessions.all()) {
      if (kind.unavailableReason() != null) {
        assertTrue(kind.unavailableReason().contains("JDK 21+"), kind.unavailableReason());
        continue;
      }
      // close() throws unless all 300 then succeeded.
      try (ParkedSessions.Parked parked = kind.park(300, 3)) {
        assertEquals(300, parked.waiting(), kind.name());
      }
    }
  }

  @Test
  void continuationSessionsReallySuspendWithoutAThreadEach() throws Exception {
    int before = Thread.activeCount();
    try (ParkedSessions.Parked parked = RunnerSessions.continuations().park(500, 3)) {
      // One worker (and the run's own thread), not 500 threads.
      assertTrue(Thread.activeCount() < before + 20, "threads now: " + Thread.activeCount());
    }
  }

}
