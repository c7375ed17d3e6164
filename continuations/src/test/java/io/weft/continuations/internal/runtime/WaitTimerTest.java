package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.spi.Ticker;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The wait timer's contract: a pending entry fires once, never before its deadline and at most
 * {@link WaitTimer#MAX_LATE_NANOS} after it; a settled entry never fires; shutdown leaves no
 * thread. The timer reads a clock the test steps by hand ({@link ManualClock}), and each step
 * waits until the timer has made a whole pass that saw it, so "before" and "after" are the
 * timer's own time, whatever the machine's load.
 */
class WaitTimerTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final ManualClock clock = new ManualClock();
  private WaitTimer timer = new WaitTimer("wait-timer-test", clock);

  @AfterEach
  void stopTimer() throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(5_000);
  }

  /** Nanoseconds that move only when the test says; starts far from zero, as nanoTime may. */
  static final class ManualClock implements Ticker {
    private final AtomicLong now = new AtomicLong(ThreadLocalRandom.current().nextLong());

    @Override
    public long nanoTime() {
      return now.get();
    }

    void set(long nanos) {
      now.set(nanos);
    }
  }

  /**
   * A session's waits as the timer sees them: one slot, re-armed for each wait; a wait is pending
   * until settled or expired, whichever comes first.
   */
  private class TestEntry implements WaitTimer.Timed {
    final WaitTimer.Slot slot;
    final AtomicInteger state = new AtomicInteger(); // 0 pending, 1 settled, 2 timed out
    final AtomicInteger expireCalls = new AtomicInteger();
    volatile long armedAt;
    volatile long timeout;
    volatile long firedAt;

    TestEntry() {
      this(new WaitTimer.Slot());
    }

    /** The next wait of the session whose previous wait was {@code previous}. */
    TestEntry(TestEntry previous) {
      this(previous.slot);
    }

    private TestEntry(WaitTimer.Slot slot) {
      this.slot = slot;
    }

    /** Arms this wait in its slot on {@code timer}, noting the clock first. */
    TestEntry arm(long timeoutNanos) {
      armedAt = clock.nanoTime();
      timeout = timeoutNanos;
      timer.arm(slot, this, timeoutNanos);
      return this;
    }

    long due() {
      return armedAt + timeout;
    }

    @Override
    public boolean pending() {
      return state.get() == 0;
    }

    @Override
    public void expire() {
      expireCalls.incrementAndGet();
      if (state.compareAndSet(0, 2)) {
        firedAt = clock.nanoTime();
      }
    }

    boolean settle() {
      return state.compareAndSet(0, 1);
    }
  }

  /**
   * Sets the clock to {@code nanos} and returns once the timer has completed a pass that began
   * after it: the pass under way when the clock moved may have read the old time, the next one
   * cannot. Wakes the timer rather than waiting for its tick.
   */
  private void stepTo(long nanos) {
    clock.set(nanos);
    long seen = timer.passes();
    while (timer.passes() < seen + 2) {
      timer.wakeUp();
      // Polls the timer's pass count; nothing is ordered by this pause.
      LockSupport.parkNanos(20_000L);
    }
  }

  /**
   * Steps the clock by {@code step} until every one of {@code pending} is due plus the timer's
   * bound, and checks at each step that none fired before its deadline and none is still
   * unfired more than {@link WaitTimer#MAX_LATE_NANOS} after it; then that each fired once.
   */
  private void assertEachFiresInBounds(List<TestEntry> pending, long step) {
    long end = Long.MIN_VALUE;
    for (TestEntry e : pending) {
      end = Math.max(end, e.due());
    }
    end += WaitTimer.MAX_LATE_NANOS + step;
    // The first step is to the current time: new entries get exactly their due() as deadline.
    for (long t = clock.nanoTime(); t - end < 0L; t += step) {
      stepTo(t);
      for (TestEntry e : pending) {
        if (e.expireCalls.get() > 0) {
          assertTrue(e.firedAt - e.due() >= 0L,
              "fired " + (e.due() - e.firedAt) + " ns before its deadline");
        } else {
          assertTrue(t - e.due() <= WaitTimer.MAX_LATE_NANOS,
              "still pending " + (t - e.due()) / MS + " ms after its deadline");
        }
      }
    }
    for (TestEntry e : pending) {
      assertEquals(1, e.expireCalls.get(), "expired other than once");
    }
  }

  /**
   * Waits for a pass at the current time: the timer gives a new entry its deadline from the
   * clock when it first sees it, so the entries armed so far get exactly {@link TestEntry#due()}.
   */
  private void letTheTimerSeeTheNewEntries() {
    stepTo(clock.nanoTime());
  }

  private void assertFiresInBounds(TestEntry entry) {
    assertEachFiresInBounds(List.of(entry), MS);
  }

  @Test
  void pendingWaitFiresAtItsDeadlineNotBefore() {
    TestEntry entry = new TestEntry().arm(50 * MS);
    letTheTimerSeeTheNewEntries();
    stepTo(entry.due() - 1);
    assertEquals(0, entry.expireCalls.get(), "fired a nanosecond before its deadline");
    assertFiresInBounds(entry);
  }

  /**
   * A wait armed from a reading taken before the clock moved ends at that reading plus its timeout:
   * the move between the reading and the arm makes it neither later nor earlier.
   */
  @Test
  void aWaitArmedFromAnEarlierReadingFiresAtThatReadingPlusItsTimeout() {
    long from = clock.nanoTime();
    clock.set(from + 30 * MS);
    TestEntry entry = new TestEntry();
    timer.armFrom(entry.slot, entry, clock, from, 50 * MS);
    letTheTimerSeeTheNewEntries();
    stepTo(from + 50 * MS - 1);
    assertEquals(0, entry.expireCalls.get(), "fired a nanosecond before its reading plus its timeout");
    stepTo(from + 50 * MS);
    assertEquals(1, entry.expireCalls.get(), "not fired at its reading plus its timeout");
  }

  /**
   * A reading of another clock says nothing of the timer's time: such a wait is timed from the
   * timer's own clock as it is armed.
   */
  @Test
  void aWaitArmedFromAReadingOfAnotherClockCountsFromTheTimersClock() {
    long now = clock.nanoTime();
    ManualClock other = new ManualClock();
    other.set(now - TimeUnit.DAYS.toNanos(365));
    TestEntry entry = new TestEntry();
    timer.armFrom(entry.slot, entry, other, other.nanoTime(), 50 * MS);
    letTheTimerSeeTheNewEntries();
    stepTo(now + 50 * MS - 1);
    assertEquals(0, entry.expireCalls.get(), "fired before the timer's clock came to its timeout");
    stepTo(now + 50 * MS);
    assertEquals(1, entry.expireCalls.get(), "not fired at the timer's clock's reading plus its timeout");
  }

  @Test
  void aTimerHoldingSlotsSleepsUntilTheEarliestDeadlineNotForATick() {
    TestEntry first = new TestEntry().arm(300 * MS);
    new TestEntry().arm(500 * MS);
    new TestEntry().arm(700 * MS);
    letTheTimerSeeTheNewEntries();
    // Twice: the pass under way as the first began may have planned without the new slots.
    letTheTimerSeeTheNewEntries();
    assertEquals(0L, timer.nextPass() - first.due(),
        "the timer plans its next pass this long (ns) after the earliest deadline");
  }

  /**
   * Replaces the timer by one whose housekeeping sleep (an hour) is longer than any test: only a
   * deadline, an arm or a {@code wakeUp} ends its sleeps.
   */
  private void useATimerThatOnlyDeadlinesAndArmsWake() throws InterruptedException {
    timer.shutdown();
    timer.awaitTermination(5_000);
    timer = new WaitTimer("wait-timer-test", clock, TimeUnit.HOURS.toNanos(1));
  }

  /**
   * Returns once the timer thread sleeps in its park with no wake-up pending: parked on the timer,
   * and still so, its pass count unchanged, a poll later. (A permit left by an earlier
   * {@code wakeUp} makes it pass once more before it sleeps.)
   */
  private void awaitTheTimerAsleep() {
    Thread thread = timer.thread();
    for (;;) {
      long seen = timer.passes();
      if (parkedOnTheTimer(thread)) {
        // Polls the timer thread's state; nothing is ordered by this pause.
        LockSupport.parkNanos(MS);
        if (parkedOnTheTimer(thread) && timer.passes() == seen) {
          return;
        }
      } else {
        LockSupport.parkNanos(20_000L);
      }
    }
  }

  private boolean parkedOnTheTimer(Thread thread) {
    return thread.getState() == Thread.State.TIMED_WAITING && LockSupport.getBlocker(thread) == timer;
  }

  /**
   * Polls, without waking the timer, until it plans its next pass for {@code nanos}. No bound of
   * its own: a timer that is never woken sleeps for its half hour, and the test's timeout fails it.
   */
  private void awaitThePlan(long nanos) {
    while (timer.nextPass() != nanos && !Thread.currentThread().isInterrupted()) {
      // Polls the timer's plan; nothing is ordered by this pause.
      LockSupport.parkNanos(20_000L);
    }
    assertEquals(nanos, timer.nextPass(), "the timer's planned pass, when the test timed out");
  }

  @Test
  @Timeout(60)
  void aShorterWaitArmedWhileTheTimerSleepsTowardsALaterDeadlineWakesIt() throws InterruptedException {
    useATimerThatOnlyDeadlinesAndArmsWake();
    TestEntry later = new TestEntry().arm(TimeUnit.MINUTES.toNanos(30));
    letTheTimerSeeTheNewEntries();
    awaitTheTimerAsleep();
    assertEquals(later.due(), timer.nextPass(), "the timer sleeps until the one deadline it holds");
    TestEntry sooner = new TestEntry().arm(20 * MS);
    // No wakeUp: only the arm can end the timer's half-hour sleep.
    awaitThePlan(sooner.due());
    assertFiresInBounds(sooner);
    assertEquals(0, later.expireCalls.get(), "the later wait fired with the sooner one");
  }

  @Test
  @Timeout(60)
  void aShorterWaitArmedWhileItsSlotIsStillQueuedWakesTheTimer() throws InterruptedException {
    useATimerThatOnlyDeadlinesAndArmsWake();
    TestEntry held = new TestEntry().arm(TimeUnit.MINUTES.toNanos(30));
    // A session whose slot the timer has given back: the deadline it was last filed by is past.
    TestEntry first = new TestEntry().arm(10 * MS);
    letTheTimerSeeTheNewEntries();
    first.settle();
    stepTo(first.due());
    awaitTheTimerAsleep();
    assertEquals(1, timer.held(), "the settled wait's slot was given back");
    assertEquals(held.due(), timer.nextPass(), "the timer sleeps until the one deadline it holds");
    // The session waits longer than the timer sleeps (a connect, say): its slot is queued, and
    // nothing wakes the timer. It connects before the timer takes the slot, and waits for a read.
    TestEntry connect = new TestEntry(first).arm(TimeUnit.MINUTES.toNanos(40));
    connect.settle();
    TestEntry read = new TestEntry(connect).arm(20 * MS);
    // No wakeUp: only the read's arm can end the timer's half-hour sleep.
    awaitThePlan(read.due());
    assertFiresInBounds(read);
    assertEquals(0, held.expireCalls.get(), "the held wait fired with the read");
    assertEquals(0, connect.expireCalls.get(), "the settled connect fired");
  }

  @Test
  void waitsOfManyLengthsEachFireInBounds() {
    List<TestEntry> entries = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      entries.add(new TestEntry().arm(TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextLong(1, 200_000))));
    }
    assertEachFiresInBounds(entries, MS);
  }

  @Test
  void shorterWaitBehindALongerOneStillFiresFirst() {
    TestEntry first = new TestEntry().arm(1_000 * MS);
    TestEntry second = new TestEntry().arm(990 * MS);
    assertEachFiresInBounds(List.of(second, first), MS);
  }

  @Test
  void aSessionsLaterWaitFiresAtItsOwnDeadlineNotTheFirstOnes() {
    TestEntry first = new TestEntry().arm(50 * MS);
    letTheTimerSeeTheNewEntries();
    stepTo(first.due() - 20 * MS);
    assertTrue(first.settle());
    TestEntry second = new TestEntry(first).arm(50 * MS);
    stepTo(first.due());
    assertEquals(0, second.expireCalls.get(), "fired at the first wait's deadline");
    stepTo(second.due() - 1);
    assertEquals(0, second.expireCalls.get(), "fired a nanosecond before its deadline");
    assertFiresInBounds(second);
    assertEquals(0, first.expireCalls.get(), "the settled first wait was fired");
  }

  @Test
  void aSessionThatKeepsWaitingIsFiledOnceAndItsStalledWaitStillFires() {
    TestEntry wait = new TestEntry().arm(30 * MS);
    letTheTimerSeeTheNewEntries();
    // Many waits that end in time, each armed a millisecond after the last: past the first
    // deadline, so the timer meets the slot while a later wait is pending and moves it on.
    for (int i = 0; i < 100; i++) {
      assertTrue(wait.settle());
      wait = new TestEntry(wait).arm(30 * MS);
      stepTo(clock.nanoTime() + MS);
      assertEquals(1, timer.held(), "one slot per session, however many waits");
    }
    assertFiresInBounds(wait);
  }

  @Test
  void aShorterWaitAfterALongerOneFiresAtItsOwnEarlierDeadline() {
    TestEntry longer = new TestEntry().arm(10_000 * MS);
    letTheTimerSeeTheNewEntries();
    assertTrue(longer.settle());
    TestEntry shorter = new TestEntry(longer).arm(300 * MS);
    assertFiresInBounds(shorter);
  }

  @Test
  void waitsBoundedByOneSessionDeadlineHandTheSlotOverOnceAndTheLastStillFires() {
    // Each wait ends at the same deadline, give or take a microsecond either way, as waits
    // bounded by a session deadline do (two clock reads apart): the slot is filed once.
    long deadline = clock.nanoTime() + 40 * MS;
    TestEntry wait = new TestEntry().arm(40 * MS);
    letTheTimerSeeTheNewEntries();
    for (int i = 0; i < 100; i++) {
      assertTrue(wait.settle());
      long jitter = (i % 2 == 0 ? -1 : 1) * TimeUnit.MICROSECONDS.toNanos(1);
      wait = new TestEntry(wait).arm(deadline + jitter - clock.nanoTime());
    }
    letTheTimerSeeTheNewEntries();
    assertEquals(1, timer.filings(), "the slot was handed over again for a deadline a microsecond earlier");
    assertFiresInBounds(wait);
  }

  @Test
  void aRetiredSlotIsDroppedAtTheNextPassAndNeverFires() {
    TestEntry wait = new TestEntry().arm(30 * MS);
    letTheTimerSeeTheNewEntries();
    assertEquals(1, timer.held());
    timer.retire(wait.slot);
    letTheTimerSeeTheNewEntries();
    assertEquals(0, timer.held(), "a retired slot stayed with the timer");
    stepTo(wait.due() + WaitTimer.MAX_LATE_NANOS + MS);
    assertEquals(0, wait.expireCalls.get(), "a retired slot's wait was fired");
  }

  @Test
  void aSlotGivenBackWithNothingPendingIsFiledAgainByTheNextWait() {
    TestEntry first = new TestEntry().arm(20 * MS);
    letTheTimerSeeTheNewEntries();
    assertTrue(first.settle());
    stepTo(first.due());
    assertEquals(0, timer.held(), "a slot with nothing pending stayed with the timer");
    TestEntry second = new TestEntry(first).arm(20 * MS);
    assertFiresInBounds(second);
  }

  @Test
  void settledWaitsAreNeverFired() {
    List<TestEntry> settled = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      TestEntry entry = new TestEntry().arm(300 * MS);
      assertTrue(entry.settle());
      settled.add(entry);
    }
    TestEntry last = new TestEntry().arm(400 * MS);
    assertFiresInBounds(last);
    for (TestEntry entry : settled) {
      assertEquals(0, entry.expireCalls.get(), "a settled wait was fired");
    }
  }

  @Test
  void waitsArmedFromManyThreadsAllEndOnce() throws Exception {
    int threads = 4;
    int perThread = 20_000;
    List<TestEntry> pending = new ArrayList<>();
    List<TestEntry> settled = new ArrayList<>();
    List<Armer> armers = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Armer armer = new Armer(perThread);
      armers.add(armer);
      Thread thread = new Thread(armer);
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    for (Armer armer : armers) {
      pending.addAll(armer.pending);
      settled.addAll(armer.settled);
    }
    // Past the settled waits' deadlines too (300 ms): 10 ms steps, a tick each.
    TestEntry after = new TestEntry().arm(310 * MS);
    pending.add(after);
    assertEachFiresInBounds(pending, 10 * MS);
    for (TestEntry entry : settled) {
      assertEquals(0, entry.expireCalls.get(), "a settled wait was fired");
    }
  }

  /** Arms waits: every tenth stays pending (20 or 25 ms), the others end at once (300 ms). */
  private final class Armer implements Runnable {
    private final int count;
    final List<TestEntry> pending = new ArrayList<>();
    final List<TestEntry> settled = new ArrayList<>();

    Armer(int count) {
      this.count = count;
    }

    @Override
    public void run() {
      for (int i = 0; i < count; i++) {
        TestEntry entry = new TestEntry();
        if (i % 10 == 0) {
          entry.arm((i % 20 == 0 ? 20 : 25) * MS);
          pending.add(entry);
        } else {
          entry.arm(300 * MS);
          entry.settle();
          settled.add(entry);
        }
      }
    }
  }

  @Test
  void anErrorInAPassDoesNotEndTheTimerAndLaterWaitsStillFire() {
    TestEntry failing = new TestEntry() {
      @Override
      public void expire() {
        if (expireCalls.getAndIncrement() == 0) {
          throw new OutOfMemoryError("injected: an allocation on the timer thread failed");
        }
        if (state.compareAndSet(0, 2)) {
          firedAt = clock.nanoTime();
        }
      }
    }.arm(20 * MS);
    letTheTimerSeeTheNewEntries();
    stepTo(failing.due());
    assertEquals(2, failing.expireCalls.get(), "the failed entry fired on the next pass");
    assertEquals(2, failing.state.get(), "the failed entry timed out");
    TestEntry later = new TestEntry().arm(50 * MS);
    assertFiresInBounds(later);
    assertFalse(timer.isTerminated(), "the timer thread survived the error");
  }

  @Test
  @Timeout(60)
  void afterAFailedPassTheTimerPassesAgainSoonNotAtItsHousekeepingSleep() throws InterruptedException {
    useATimerThatOnlyDeadlinesAndArmsWake();
    TestEntry failing = new TestEntry() {
      @Override
      public void expire() {
        if (expireCalls.getAndIncrement() == 0) {
          throw new IllegalStateException("injected: the wait's expiry failed");
        }
        if (state.compareAndSet(0, 2)) {
          firedAt = clock.nanoTime();
        }
      }
    }.arm(20 * MS);
    letTheTimerSeeTheNewEntries();
    awaitTheTimerAsleep();
    clock.set(failing.due());
    // One wake-up, taken by the sleeping timer: the pass it starts fails, and then no more come
    // from the test. A timer that paused for its housekeeping hour hangs here until the timeout.
    timer.wakeUp();
    // Waits for the retried expiry's end (its state), not its start (its count, taken first in
    // expire(): the timer thread may not have set the state yet when the count reads 2).
    while (failing.state.get() != 2 && !Thread.currentThread().isInterrupted()) {
      // Polls the wait; nothing is ordered by this pause.
      LockSupport.parkNanos(20_000L);
    }
    assertEquals(2, failing.state.get(), "the failed wait timed out");
    assertEquals(2, failing.expireCalls.get(), "the failed wait's expiry was tried once more, no more");
  }

  @Test
  void shutdownEndsTheThreadAndFiresNothingPending() throws InterruptedException {
    TestEntry entry = new TestEntry().arm(200 * MS);
    timer.shutdown();
    timer.awaitTermination(5_000);
    assertTrue(timer.isTerminated(), "timer thread still alive after shutdown");
    // Only the timer's thread fires a wait, and it has ended: the count is final now, no need
    // to move the clock past the deadline to see it stay at zero.
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
