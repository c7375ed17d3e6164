package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
   * A session backing off waits on its slot's scheduleEnd: an arrival does not wake it (it takes
   * none while it backs off), the schedule's end does, and after the end it does not wait at all
   * (review2 R2: a backoff held the open model's end back by up to 500 ms).
   */
  @Test
  void theScheduleEndAloneWakesASessionBackingOff() {
    Arrivals a = new Arrivals(Stages.constant(1, 1), 0, 1);
    Arrivals.Slot backingOff = a.slot();
    AtomicInteger woken = new AtomicInteger();
    backingOff.scheduleEnd().register(woken::incrementAndGet);
    a.arrive(5L);
    assertEquals(0, woken.get(), "an arrival does not end a backoff");
    assertTrue(!backingOff.scheduleEnded());
    a.stop();
    assertEquals(1, woken.get());
    assertTrue(backingOff.scheduleEnded());
    backingOff.scheduleEnd().register(woken::incrementAndGet);
    assertEquals(2, woken.get(), "after the end a registration wakes at once");
    assertEquals(Arrivals.END, backingOff.next());
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
