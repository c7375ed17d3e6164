package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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

  /**
   * A cancel pass told by its {@code goesOn} not to go on (its run is over, or its canceller
   * stalled in a close and was replaced) wakes and marks no fiber: the wake pass, which asks no
   * one per fiber, asks once before it starts (each of an aborted run's passes, every 50 ms of its
   * grace, would otherwise write to every fiber of the batch again). The scheduler is cancelled all
   * the same, and a pass that goes on marks them. No timing: the one worker is held in the only
   * admitted fiber's frame; the others are not admitted, so nothing but the passes marks them.
   */
  @Test
  void aCancelPassStoppedBeforeItStartsMarksNoFiber() throws Exception {
    Scheduler scheduler = new Scheduler(1, 1, "cancelled-strands-test");
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (PipeConnector unused = new PipeConnector()) {
      List<Fiber> batch = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        batch.add(new Fiber(i, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE, null,
            scheduler, false));
      }
      Runnable hold = () -> {
        started.countDown();
        try {
          // Bounded: the test lets it go in its finally.
          release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      };
      CountDownLatch done = scheduler.runAll(batch, fiber -> fiber == batch.get(0) ? hold : () -> { }, () -> { });
      try {
        assertTrue(started.await(30, TimeUnit.SECONDS), "the holder's frame never started");
        scheduler.cancel(() -> false);
        for (Fiber fiber : batch) {
          assertFalse(fiber.cancelled, "a pass stopped before it started marked fiber " + fiber.index());
        }
        assertEquals(0, scheduler.strandings());
        scheduler.cancel(() -> true);
        for (Fiber fiber : batch) {
          assertTrue(fiber.cancelled, "a pass that goes on left fiber " + fiber.index() + " unmarked");
        }
      } finally {
        release.countDown();
      }
      // The fibers admitted after the cancel are cancelled as they are admitted: all end.
      assertTrue(done.await(30, TimeUnit.SECONDS), "the batch never ended");
    } finally {
      scheduler.shutdown(5_000);
    }
  }
}
