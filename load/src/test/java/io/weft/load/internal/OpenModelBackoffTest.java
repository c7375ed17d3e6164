package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.load.scenario.internal.VirtualUser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * An open-model user's backoff ({@link VirtualUser#backOffTill}) on a plain thread, where its wait
 * blocks: cut short only once nothing is left for the user, waited while arrivals are queued. No
 * clock is moved and nothing sleeps: the backoffs are 10 minutes, so a call that returns has
 * been cut short; the build's JUnit timeout is the only time bound.
 */
class OpenModelBackoffTest {
  private static final long TEN_MINUTES = TimeUnit.MINUTES.toNanos(10);

  @Test
  void aStoppedScheduleCutsABackoffShortAtOnceAndNothingIsWaited() throws Exception {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot slot = a.slot();
    a.stop();
    assertEquals(0L, VirtualUser.backOffTill(slot, TEN_MINUTES, io.weft.transport.spi.Ticker.system()));
  }

  /**
   * With arrivals queued at the schedule's end the user waits (review3 load14 BUG-1: it returned
   * at once, and the backlog was drained with no backoff); it returns once another user has taken
   * the backlog's last arrival.
   */
  @Test
  void aBackoffWithArrivalsQueuedAfterTheScheduleEndLastsUntilTheyAreTaken() throws Exception {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot backingOff = a.slot();
    Arrivals.Slot taker = a.slot();
    a.arrive(1L);
    a.arrive(2L);
    a.end();
    AtomicLong waited = new AtomicLong(-1L);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread user = new Thread(() -> {
      try {
        waited.set(VirtualUser.backOffTill(backingOff, TEN_MINUTES, io.weft.transport.spi.Ticker.system()));
      } catch (Throwable e) {
        failed.set(e);
      }
    }, "backing-off-user");
    user.start();
    awaitBlocked(user);
    assertEquals(1L, taker.next());
    assertFalse(backingOff.finished(), "an arrival is still queued");
    awaitBlocked(user);
    assertEquals(2L, taker.next());
    user.join();
    assertEquals(null, failed.get());
    assertTrue(waited.get() > 0L && waited.get() < TEN_MINUTES, "waited " + waited.get());
    assertEquals(Arrivals.END, backingOff.next());
  }

  /** Returns once {@code t} waits in the blocking form of {@code Suspend.await}; fails if it ends first. */
  private static void awaitBlocked(Thread t) {
    while (true) {
      if (!t.isAlive()) {
        fail("the backoff returned with arrivals queued");
      }
      for (StackTraceElement e : t.getStackTrace()) {
        if (e.getClassName().endsWith(".BlockingWait") && e.getMethodName().equals("await")) {
          return;
        }
      }
      // A poll, not an ordering: the state looked for holds until the test moves on.
      LockSupport.parkNanos(100_000L);
    }
  }
}
