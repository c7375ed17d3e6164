package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.PipeConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A cancelled run's wake-ups (the cancel wakes every suspended fiber at once, maybe in a full
 * heap) take no queue node: each goes on the scheduler's stranded list, threaded through the
 * fibers themselves; the workers take them one at a time, each taken once and never put back
 * (taking n costs n steps, not n * n), oldest first (the woken fibers, which may hold the heap,
 * run before the fibers admitted after them, which hold nothing yet). No timing: the one worker
 * is held inside a fiber's frame while the test wakes fibers and takes them as a worker would.
 */
class CancelledRunStrandsTest {
  private static final int WOKEN = 5;

  @Test
  void aCancelledRunsWakeUpsAreStrandedAndTakenOnceEachOldestFirst() throws Exception {
    Scheduler scheduler = new Scheduler(1, 1, "cancelled-strands-test");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (PipeConnector unused = new PipeConnector()) {
      Fiber holder = new Fiber(0, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE, null,
          scheduler, false);
      CountDownLatch done = scheduler.runAll(List.of(holder), fiber -> () -> {
        started.countDown();
        try {
          // Bounded: the test lets it go in its finally.
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, () -> { });
      try {
        assertTrue(started.await(30, TimeUnit.SECONDS), "the holder's frame never started");
        // The one worker is inside the holder's frame: nothing takes from the lists but the test.
        scheduler.cancel();
        List<Fiber> woken = new ArrayList<>();
        for (int i = 1; i <= WOKEN; i++) {
          Fiber fiber = new Fiber(i, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE, null,
              scheduler, false);
          woken.add(fiber);
          scheduler.enqueue(fiber);
        }
        // Every wake-up stranded, none through the ready queue.
        assertEquals(WOKEN, scheduler.strandings());
        for (int i = 0; i < WOKEN; i++) {
          assertSame(woken.get(i), scheduler.poll(), "taken in the order woken, at " + i);
          assertNull(woken.get(i).strandedNext, "unlinked when taken, at " + i);
        }
        assertNull(scheduler.poll());
        // Taken one at a time: none of them put back on the list.
        assertEquals(WOKEN, scheduler.strandings());
        // A later wake-up goes on the emptied list and is taken as well.
        Fiber late = new Fiber(WOKEN + 1, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE,
            null, scheduler, false);
        scheduler.enqueue(late);
        assertSame(late, scheduler.poll());
        assertNull(scheduler.poll());
      } finally {
        release.countDown();
      }
      assertTrue(done.await(30, TimeUnit.SECONDS), "the holder never ended");
    } finally {
      scheduler.shutdown(5_000);
    }
  }
}
