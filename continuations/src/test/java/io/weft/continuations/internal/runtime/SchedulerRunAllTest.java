package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.continuations.testing.PipeConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link Scheduler#runAll}'s end hook: the continuation runner's thread looks at the latch's
 * count instead of waiting on it (a timed latch wait needs a queue node, and on a full heap a
 * later JDK waits for it past the wait's deadline), so the last fiber's end must wake it. The
 * hook runs once the whole batch has ended, not before, and once only: also when its wake-up
 * ran out of heap (unparking a virtual thread allocates).
 */
class SchedulerRunAllTest {
  private static final int FIBERS = 5;

  @Test
  void theEndHookRunsOnceTheLastFiberHasEndedAndNotBefore() throws Exception {
    Scheduler scheduler = new Scheduler(2, 1, "run-all-test");
    try (PipeConnector unused = new PipeConnector()) {
      AtomicInteger framesRun = new AtomicInteger();
      CompletableFuture<Integer> framesAtHook = new CompletableFuture<>();
      CountDownLatch[] latch = new CountDownLatch[1];
      CompletableFuture<Long> countAtHook = new CompletableFuture<>();
      List<Fiber> fibers = new ArrayList<>();
      for (int i = 0; i < FIBERS; i++) {
        fibers.add(new Fiber(i, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE, null,
            scheduler, false));
      }
      synchronized (latch) {
        latch[0] = scheduler.runAll(fibers, fiber -> framesRun::incrementAndGet, () -> {
          synchronized (latch) {
            countAtHook.complete(latch[0].getCount());
          }
          framesAtHook.complete(framesRun.get());
        });
      }
      // Bounded: a hook that never runs fails here, not by hanging the build.
      assertEquals(0L, countAtHook.get(30, TimeUnit.SECONDS));
      assertEquals(FIBERS, framesAtHook.get(30, TimeUnit.SECONDS));
    } finally {
      scheduler.shutdown(5_000);
    }
  }

  @Test
  void anEndHookThatRunsOutOfHeapIsNotRunAgain() throws Exception {
    Scheduler scheduler = new Scheduler(2, 1, "run-all-oom-test");
    AtomicInteger hookRuns = new AtomicInteger();
    CompletableFuture<Void> hookRan = new CompletableFuture<>();
    try (PipeConnector unused = new PipeConnector()) {
      List<Fiber> fibers = new ArrayList<>();
      for (int i = 0; i < FIBERS; i++) {
        fibers.add(new Fiber(i, unused, InetSocketAddress.createUnresolved("nowhere", 1), Timeout.NONE, null,
            scheduler, false));
      }
      CountDownLatch done = scheduler.runAll(fibers, fiber -> () -> { }, () -> {
        hookRan.complete(null);
        if (hookRuns.incrementAndGet() == 1) {
          throw new OutOfMemoryError("unable to create a wake-up: test");
        }
      });
      hookRan.get(30, TimeUnit.SECONDS);
      assertEquals(0L, done.getCount());
    } finally {
      // Joins the workers: the fiber ends, and whatever they ran after the hook, are over.
      scheduler.shutdown(5_000);
    }
    assertEquals(1, hookRuns.get());
  }
}
