package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The dispatcher's hand-off, driven arrival by arrival (no thread, no clock). */
class ArrivalsTest {
  @Test
  void anArrivalGoesToAWaitingSessionAndWakesIt() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot slot = a.slot();
    assertEquals(Arrivals.NONE, slot.next());
    AtomicInteger woken = new AtomicInteger();
    slot.register(woken::incrementAndGet);
    assertEquals(0, woken.get());
    a.arrive(42L);
    assertEquals(1, woken.get());
    assertEquals(42L, slot.next());
  }

  @Test
  void arrivalsWithNoFreeSessionQueueKeepingTheirIntendedStartsInOrder() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot busy = a.slot();
    a.arrive(1L);
    a.arrive(2L);
    a.arrive(3L);
    assertEquals(3, a.backlog());
    assertEquals(1L, busy.next());
    AtomicInteger woken = new AtomicInteger();
    busy.register(woken::incrementAndGet);
    assertEquals(1, woken.get(), "a registration with arrivals waiting wakes at once");
    assertEquals(2L, busy.next());
    assertEquals(3L, busy.next());
    assertEquals(Arrivals.NONE, busy.next());
  }

  @Test
  void theEndWakesWaitingSessionsAfterTheBacklogIsDone() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot s1 = a.slot();
    Arrivals.Slot s2 = a.slot();
    assertEquals(Arrivals.NONE, s1.next());
    AtomicInteger woken = new AtomicInteger();
    s1.register(woken::incrementAndGet);
    a.arrive(7L);
    a.arrive(8L);
    a.stop();
    assertEquals(1, woken.get());
    assertEquals(7L, s1.next());
    assertEquals(Arrivals.END, s2.next(), "stop drops the backlog");
    assertEquals(Arrivals.END, s1.next());
  }

  /**
   * A session backing off waits on its slot's whenFinished: an arrival does not wake it (it takes
   * none while it backs off), the schedule's end with nothing queued does, and once nothing is
   * left a registration wakes at once.
   */
  @Test
  void theScheduleEndWithNothingQueuedWakesASessionBackingOff() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot backingOff = a.slot();
    Arrivals.Slot other = a.slot();
    AtomicInteger woken = waitForFinish(backingOff);
    assertEquals(Arrivals.NONE, other.next());
    a.arrive(5L);
    assertEquals(0, woken.get(), "an arrival does not end a backoff");
    assertFalse(backingOff.finished());
    assertEquals(5L, other.next());
    a.end();
    assertEquals(1, woken.get());
    assertTrue(backingOff.finished());
    backingOff.whenFinished().register(woken::incrementAndGet);
    assertEquals(2, woken.get(), "with nothing left a registration wakes at once");
    assertEquals(Arrivals.END, backingOff.next());
  }

  /**
   * The schedule's end does not cut a backoff short while arrivals are queued (review3 load14
   * BUG-1: it did, and a failing server's backlog was then drained with no backoff at all): the
   * session backing off is woken when the backlog's last arrival is taken, and a registration
   * after that wakes at once.
   */
  @Test
  void aBacklogLeftAtTheScheduleEndKeepsASessionBackingOffUntilItIsTaken() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot backingOff = a.slot();
    Arrivals.Slot taker = a.slot();
    AtomicInteger woken = waitForFinish(backingOff);
    a.arrive(1L);
    a.arrive(2L);
    a.end();
    assertEquals(0, woken.get(), "the schedule ended with 2 arrivals queued");
    assertFalse(backingOff.finished());
    assertEquals(1L, taker.next());
    assertEquals(0, woken.get(), "one arrival still queued");
    assertFalse(backingOff.finished());
    AtomicInteger late = waitForFinish(backingOff);
    assertEquals(0, late.get(), "a registration with an arrival queued waits");
    assertEquals(2L, taker.next());
    assertEquals(1, late.get(), "the backlog's last arrival taken wakes the session backing off");
    assertTrue(backingOff.finished());
    backingOff.whenFinished().register(woken::incrementAndGet);
    assertEquals(1, woken.get(), "after that a registration wakes at once");
    assertEquals(Arrivals.END, backingOff.next());
    assertEquals(Arrivals.END, taker.next());
  }

  /** {@link Arrivals#stop()} drops the backlog: a session backing off is done at once. */
  @Test
  void aStopWakesASessionBackingOffWhateverIsQueued() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot backingOff = a.slot();
    AtomicInteger woken = waitForFinish(backingOff);
    a.arrive(1L);
    a.arrive(2L);
    a.stop();
    assertEquals(1, woken.get());
    assertTrue(backingOff.finished());
    // The dispatcher saw no stop yet when it chose to hand this one out (review load15 RISK-3).
    a.arrive(3L);
    assertTrue(backingOff.finished(), "an arrival after the stop");
    assertEquals(0, a.backlog());
    assertEquals(Arrivals.END, backingOff.next());
  }

  /** Registers on {@code slot}'s whenFinished, as a session backing off does: how often it was woken. */
  private static AtomicInteger waitForFinish(Arrivals.Slot slot) {
    AtomicInteger woken = new AtomicInteger();
    slot.whenFinished().register(woken::incrementAndGet);
    return woken;
  }

  @Test
  void shardsTakeEveryNthArrivalOfTheSchedule() throws Exception {
    Stages stages = Stages.constant(1000, 0.01);
    long total = stages.arrivals();
    long taken = 0;
    for (int shard = 0; shard < 3; shard++) {
      Arrivals a = new Arrivals(stages, shard, 3);
      Arrivals.Slot slot = a.slot();
      a.start();
      long n = 0;
      long t;
      while (true) {
        t = slot.next();
        if (t == Arrivals.END) {
          break;
        }
        if (t == Arrivals.NONE) {
          java.util.concurrent.CountDownLatch woke = new java.util.concurrent.CountDownLatch(1);
          slot.register(woke::countDown);
          woke.await();
          continue;
        }
        n++;
      }
      assertTrue(n >= total / 3 && n <= total / 3 + 1);
      taken += n;
    }
    assertEquals(total, taken);
  }
}
