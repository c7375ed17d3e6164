package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wait timer's contract: a pending entry fires once, never before its deadline and within
 * the timer's bound after it; a settled entry never fires; shutdown leaves no thread. The upper
 * bounds carry a wide margin for a loaded machine: they catch a timeout that is lost, not one
 * that is slow.
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitTimerTest {
  private static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final WaitTimer timer = new WaitTimer("wait-timer-test");

  @AfterEach
  void stopTimer() throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(5_000);
  }

  /** A wait as the timer sees it: pending until settled or expired, whichever comes first. */
  private static class TestEntry extends WaitTimer.Entry {
    final AtomicInteger state = new AtomicInteger(); // 0 pending, 1 settled, 2 timed out
    final CountDownLatch fired = new CountDownLatch(1);
    final AtomicInteger expireCalls = new AtomicInteger();
    volatile long armedAt;
    volatile long firedAt;

    /** Arms this entry on {@code timer}, noting the time first. */
    TestEntry arm(WaitTimer timer, long timeoutNanos) {
      armedAt = System.nanoTime();
      timer.add(this, timeoutNanos);
      return this;
    }

    long due() {
      return armedAt + timeout;
    }

    @Override
    boolean pending() {
      return state.get() == 0;
    }

    @Override
    void expire() {
      expireCalls.incrementAndGet();
      if (state.compareAndSet(0, 2)) {
        firedAt = System.nanoTime();
        fired.countDown();
      }
    }

    boolean settle() {
      return state.compareAndSet(0, 1);
    }
  }

  private static void assertFiredInBounds(TestEntry entry) throws InterruptedException {
    assertTrue(entry.fired.await(entry.due() - System.nanoTime() + WaitTimer.MAX_LATE_NANOS + SLACK_NANOS,
        TimeUnit.NANOSECONDS), "a pending wait never timed out");
    assertTrue(entry.firedAt - entry.due() >= 0L,
        "fired " + (entry.due() - entry.firedAt) + " ns before its timeout had passed");
    assertTrue(entry.firedAt - entry.due() <= WaitTimer.MAX_LATE_NANOS + SLACK_NANOS,
        "fired " + (entry.firedAt - entry.due()) / 1_000_000 + " ms after its timeout had passed");
    assertEquals(1, entry.expireCalls.get(), "expired more than once");
  }

  @Test
  void pendingWaitFiresAtItsDeadlineNotBefore() throws InterruptedException {
    TestEntry entry = new TestEntry();
    entry.arm(timer, TimeUnit.MILLISECONDS.toNanos(50));
    assertFiredInBounds(entry);
  }

  @Test
  void waitsOfManyLengthsEachFireInBounds() throws InterruptedException {
    List<TestEntry> entries = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      TestEntry entry = new TestEntry();
      entry.arm(timer, TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextLong(1, 200_000)));
      entries.add(entry);
    }
    for (TestEntry entry : entries) {
      assertFiredInBounds(entry);
    }
  }

  @Test
  void shorterWaitBehindALongerOneInTheSameLaneStillFires() throws InterruptedException {
    long longer = TimeUnit.MILLISECONDS.toNanos(1_000);
    long shorter = TimeUnit.MILLISECONDS.toNanos(990);
    assertEquals(WaitTimer.laneKey(longer), WaitTimer.laneKey(shorter), "test premise: one lane");
    TestEntry first = new TestEntry();
    TestEntry second = new TestEntry();
    first.arm(timer, longer);
    second.arm(timer, shorter);
    assertFiredInBounds(second);
    assertFiredInBounds(first);
  }

  @Test
  void settledWaitsAreNeverFired() throws InterruptedException {
    List<TestEntry> settled = new ArrayList<>();
    TestEntry last = new TestEntry();
    for (int i = 0; i < 1_000; i++) {
      TestEntry entry = new TestEntry();
      entry.arm(timer, TimeUnit.MILLISECONDS.toNanos(300));
      assertTrue(entry.settle());
      settled.add(entry);
    }
    last.arm(timer, TimeUnit.MILLISECONDS.toNanos(400));
    assertFiredInBounds(last);
    for (TestEntry entry : settled) {
      assertEquals(0, entry.expireCalls.get(), "a settled wait was fired");
    }
  }

  @Test
  void waitsArmedFromManyThreadsAllEndOnce() throws Exception {
    int threads = 4;
    int perThread = 20_000;
    List<List<TestEntry>> pending = new ArrayList<>();
    List<List<TestEntry>> settled = new ArrayList<>();
    List<Thread> armers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<TestEntry> mine = new ArrayList<>();
      List<TestEntry> ended = new ArrayList<>();
      pending.add(mine);
      settled.add(ended);
      Thread armer = new Thread(new Armer(timer, perThread, mine, ended));
      armers.add(armer);
      armer.start();
    }
    for (Thread armer : armers) {
      armer.join();
    }
    for (List<TestEntry> list : pending) {
      for (TestEntry entry : list) {
        assertFiredInBounds(entry);
      }
    }
    long lastDeadline = Long.MIN_VALUE;
    for (List<TestEntry> list : settled) {
      for (TestEntry entry : list) {
        lastDeadline = Math.max(lastDeadline, entry.due());
      }
    }
    TestEntry after = new TestEntry();
    after.arm(timer, Math.max(1L, lastDeadline - System.nanoTime()) + TimeUnit.MILLISECONDS.toNanos(50));
    assertFiredInBounds(after);
    for (List<TestEntry> list : settled) {
      for (TestEntry entry : list) {
        assertEquals(0, entry.expireCalls.get(), "a settled wait was fired");
      }
    }
  }

  /** Arms waits: every tenth stays pending (20 or 25 ms), the others end at once (300 ms). */
  private static final class Armer implements Runnable {
    private final WaitTimer timer;
    private final int count;
    private final List<TestEntry> pending;
    private final List<TestEntry> settled;

    Armer(WaitTimer timer, int count, List<TestEntry> pending, List<TestEntry> settled) {
      this.timer = timer;
      this.count = count;
      this.pending = pending;
      this.settled = settled;
    }

    @Override
    public void run() {
      for (int i = 0; i < count; i++) {
        TestEntry entry = new TestEntry();
        if (i % 10 == 0) {
          entry.arm(timer, TimeUnit.MILLISECONDS.toNanos(i % 20 == 0 ? 20 : 25));
          pending.add(entry);
        } else {
          entry.arm(timer, TimeUnit.MILLISECONDS.toNanos(300));
          entry.settle();
          settled.add(entry);
        }
      }
    }
  }

  @Test
  void anErrorInAPassDoesNotEndTheTimerAndLaterWaitsStillFire() throws InterruptedException {
    TestEntry failing = new TestEntry() {
      @Override
      void expire() {
        if (expireCalls.getAndIncrement() == 0) {
          throw new OutOfMemoryError("injected: an allocation on the timer thread failed");
        }
        if (state.compareAndSet(0, 2)) {
          firedAt = System.nanoTime();
          fired.countDown();
        }
      }
    };
    failing.arm(timer, TimeUnit.MILLISECONDS.toNanos(20));
    assertTrue(failing.fired.await(30, TimeUnit.SECONDS), "the failed entry fired on a later pass");
    TestEntry later = new TestEntry();
    later.arm(timer, TimeUnit.MILLISECONDS.toNanos(50));
    assertFiredInBounds(later);
    assertFalse(timer.isTerminated(), "the timer thread survived the error");
  }

  @Test
  void shutdownEndsTheThreadAndFiresNothingPending() throws InterruptedException {
    TestEntry entry = new TestEntry();
    entry.arm(timer, TimeUnit.MILLISECONDS.toNanos(200));
    timer.shutdown();
    timer.awaitTermination(5_000);
    assertTrue(timer.isTerminated(), "timer thread still alive after shutdown");
    // Only the timer's thread fires a wait, and it has ended: the count is final now, no need
    // to sleep past the deadline to see it stay at zero.
    assertEquals(0, entry.expireCalls.get(), "fired on shutdown");
  }

  @Test
  void schedulerShutdownLeavesNoThread() throws InterruptedException {
    Scheduler scheduler = new Scheduler(2, 0, "scheduler-test");
    assertFalse(scheduler.isTerminated());
    scheduler.shutdown(5_000);
    assertTrue(scheduler.isTerminated(), "a worker or the timer outlived shutdown");
  }
}
