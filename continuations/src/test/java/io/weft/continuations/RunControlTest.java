package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * An abort cancels nothing on the thread that reports it, however many report it: it records the
 * first reason, marks the run cancelled and hands it to the JVM's canceller, a thread made with
 * the first run (before any abort), which makes the abort's cancel and cancels the run again every
 * poll while it waits, until the run is over or its grace has run out; never the reporting or the
 * waiting thread, which a close that never returns would keep. The wait that looks instead of
 * blocking needs no heap: a full heap cannot keep it past the abort's grace.
 */
class RunControlTest {
  /** A grace that no test here can outlast. */
  private static final long GRACE_MILLIS = TimeUnit.DAYS.toMillis(1);

  /** The threads named {@value AbortCancels#THREAD_NAME} alive now. */
  private static Set<Thread> cancellers() {
    Set<Thread> found = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().equals(AbortCancels.THREAD_NAME)) {
        found.add(t);
      }
    }
    return found;
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void anAbortReportedByManyThreadsCancelsOnNoneOfThemButOnTheCancellerMadeBeforeItAndKeepsOneReason()
      throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      // Made with the run, before any abort.
      Set<Thread> before = cancellers();
      assertFalse(before.isEmpty(), "no canceller thread made with the run");
      List<Thread> cancelledOn = new java.util.concurrent.CopyOnWriteArrayList<>();
      control.onCancel(() -> cancelledOn.add(Thread.currentThread()));
      int reporters = 32;
      CountDownLatch go = new CountDownLatch(1);
      List<String> reasons = new ArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < reporters; i++) {
        String reason = "the heap ran out (reported by " + i + ")";
        reasons.add(reason);
        Thread t = new Thread(() -> {
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          control.abort(reason);
        }, "reporter-" + i);
        t.start();
        threads.add(t);
      }
      go.countDown();
      for (Thread t : threads) {
        t.join();
      }
      assertTrue(control.isCancelled(), "an abort marks the run cancelled at once");
      String kept = control.abortedBecause();
      assertTrue(reasons.contains(kept), kept);
      // The abort's cancel comes, on the canceller made before the abort.
      assertTrue(control.awaitSessions(() -> !cancelledOn.isEmpty(), GRACE_MILLIS));
      for (Thread t : cancelledOn) {
        assertFalse(threads.contains(t), "cancelled on a reporting thread: " + t.getName());
        assertEquals(AbortCancels.THREAD_NAME, t.getName(), "cancelled on a thread not the canceller's");
      }
      for (int i = 0; i < 100; i++) {
        control.abort("a later report " + i);
      }
      assertSame(kept, control.abortedBecause());
    } finally {
      control.over();
    }
  }

  @Test
  // A watchdog only: on the old code the spare made at the abort may be lost, and the wait below
  // waits for the grace (a day).
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void theSpareIsMadeWithTheRunNotAtTheAbortAndTakesOverAPassStalledInAClose() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    CountDownLatch release = new CountDownLatch(1);
    try {
      // Made with the run, before any abort: the canceller and its spare.
      Set<Thread> before = cancellers();
      assertTrue(before.size() >= 2, "canceller threads made with the run: " + before.size());
      AtomicBoolean hung = new AtomicBoolean();
      AtomicReference<Thread> stalled = new AtomicReference<>();
      List<Thread> secondOn = new java.util.concurrent.CopyOnWriteArrayList<>();
      // Two sessions: the first pass's close of session 0 never returns (until the test ends).
      control.onCancel(() -> {
        if (!control.nextSession()) {
          return;
        }
        if (hung.compareAndSet(false, true)) {
          stalled.set(Thread.currentThread());
          while (release.getCount() > 0) {
            try {
              release.await();
            } catch (InterruptedException e) {
              // A close that never returns ignores interrupts too.
            }
          }
        }
        if (!control.nextSession()) {
          return;
        }
        secondOn.add(Thread.currentThread());
        control.wake();
      });
      control.abort("the heap ran out");
      // Session 1 is cancelled all the same, by the spare made before the abort.
      assertTrue(control.awaitSessions(() -> !secondOn.isEmpty(), GRACE_MILLIS));
      Thread taker = secondOn.get(0);
      assertTrue(stalled.get() != null && stalled.get() != taker, "not taken over from the stalled pass");
      assertEquals(AbortCancels.THREAD_NAME, taker.getName());
      assertTrue(before.contains(taker), "the stalled pass was taken over by a thread made after the abort");
    } finally {
      release.countDown();
      control.over();
    }
  }

  /**
   * Review s14 point 9: a pass stalls in a close for good, its run ends before the spare takes over,
   * and the thread that takes over never makes a pass of its own (nothing is listed). The stalled
   * thread's pass mark must not stay: the thread that took over is idle, as the docs say of the JVM
   * at rest. Before, the mark stayed for as long as the close (here until the test ends): that
   * thread was never idle, and the spare looked at the mark every poll. The close spins (running),
   * so that the takeover waits for a second of the run's clock, which the test moves only once the
   * run is over.
   */
  @Test
  // A watchdog only: on the old code the active thread is never idle, and the wait below runs to it.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aTakeoverFromAPassStalledAfterItsRunEndedLeavesTheCancellersIdle() throws Exception {
    AtomicLong now = new AtomicLong();
    RunControl control = new RunControl(GRACE_MILLIS, now::get);
    AtomicBoolean released = new AtomicBoolean();
    CountDownLatch spinning = new CountDownLatch(1);
    AtomicReference<Thread> stalled = new AtomicReference<>();
    try {
      AtomicBoolean hung = new AtomicBoolean();
      control.onCancel(() -> {
        if (control.nextSession() && hung.compareAndSet(false, true)) {
          stalled.set(Thread.currentThread());
          spinning.countDown();
          while (!released.get()) {
            Thread.onSpinWait();
          }
        }
      });
      control.abort("the heap ran out");
      spinning.await();
      // The run ends while its pass is stalled: nothing is listed any more.
      control.over();
      // The spare has looked at the stalled pass and started its clock (a look may first see the
      // pass's last progress, the next starts the clock: the third is past both) ...
      long from = AbortCancels.looks;
      while (AbortCancels.looks - from < 3L) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        java.util.concurrent.locks.LockSupport.parkNanos(AbortCancels.POLL_NANOS);
      }
      // ... then a second of the run's clock: the spare takes over, finds nothing to serve, and is
      // then idle; the stalled thread is not (it is neither the active thread nor the spare).
      now.addAndGet(AbortCancels.STALLED_NANOS);
      for (;;) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        Thread idle = null;
        for (Thread t : cancellers()) {
          if (t != stalled.get() && AbortCancels.isIdle(t)) {
            idle = t;
          }
        }
        if (idle != null) {
          break;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(AbortCancels.POLL_NANOS);
      }
      assertTrue(stalled.get().isAlive() && !AbortCancels.isIdle(stalled.get()), "the stalled thread, still in its close");
    } finally {
      released.set(true);
      control.over();
    }
  }

  @Test
  // A watchdog only: on the old code the older run was never served again, and the wait below
  // waited for the grace (a day).
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aPassThatMeetsAVirtualMachineErrorKeepsNoOlderAbortedRunFromItsCancels() throws Exception {
    RunControl older = new RunControl(GRACE_MILLIS);
    RunControl newer = new RunControl(GRACE_MILLIS);
    try {
      AtomicInteger newerCancels = new AtomicInteger();
      AtomicInteger olderAfterNewer = new AtomicInteger();
      older.onCancel(() -> {
        if (newerCancels.get() > 0) {
          olderAfterNewer.incrementAndGet();
        }
        older.wake();
      });
      // A close so deep that it overflows the stack, every time.
      newer.onCancel(() -> {
        newerCancels.incrementAndGet();
        throw new StackOverflowError("a deep close");
      });
      older.abort("the heap ran out");
      newer.abort("the heap ran out");
      // The newer run is listed first: each round meets its error before the older run.
      assertTrue(older.awaitSessions(() -> olderAfterNewer.get() >= 2, GRACE_MILLIS));
      assertTrue(newerCancels.get() >= 1);
    } finally {
      newer.over();
      older.over();
    }
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aPassWhoseThreadRunsIsTakenOverOnlyAfterASecondOfTheRunsClock() throws Exception {
    // The run's clock, moved only here.
    AtomicLong now = new AtomicLong();
    RunControl control = new RunControl(GRACE_MILLIS, now::get);
    java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
    try {
      AtomicBoolean slow = new AtomicBoolean();
      CountDownLatch spinning = new CountDownLatch(1);
      AtomicReference<Thread> spinner = new AtomicReference<>();
      List<Thread> secondOn = new java.util.concurrent.CopyOnWriteArrayList<>();
      // The first pass's close of session 0 is slow but running (as a close in a full heap):
      // it spins, RUNNABLE, making no progress, until the test ends.
      control.onCancel(() -> {
        if (!control.nextSession()) {
          return;
        }
        if (slow.compareAndSet(false, true)) {
          spinner.set(Thread.currentThread());
          spinning.countDown();
          while (!released.get()) {
            Thread.onSpinWait();
          }
        }
        if (!control.nextSession()) {
          return;
        }
        secondOn.add(Thread.currentThread());
        control.wake();
      });
      control.abort("the heap ran out");
      spinning.await();
      // The spare looks at it many times (each look a poll) and does not take over: the pass's
      // thread runs, and no time has passed on the run's clock.
      long from = AbortCancels.looks;
      while (AbortCancels.looks - from < 4L * AbortCancels.STALLED_LOOKS) {
        // Polls the count, a look's time apart.
        java.util.concurrent.locks.LockSupport.parkNanos(AbortCancels.POLL_NANOS);
      }
      assertTrue(secondOn.isEmpty(), "taken over from a running pass on " + secondOn);
      // A second of the run's clock without progress: the spare takes over, session 1 is cancelled.
      now.addAndGet(AbortCancels.STALLED_NANOS);
      assertTrue(control.awaitSessions(() -> !secondOn.isEmpty(), GRACE_MILLIS));
      assertTrue(secondOn.get(0) != spinner.get(), "not taken over");
      assertEquals(AbortCancels.THREAD_NAME, secondOn.get(0).getName());
    } finally {
      released.set(true);
      control.over();
    }
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void anAbortsCancelThatRanOutOfHeapIsMadeAgainAtTheNextPoll() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      AtomicInteger cancels = new AtomicInteger();
      control.onCancel(() -> {
        if (cancels.incrementAndGet() == 1) {
          throw new OutOfMemoryError("Java heap space");
        }
        control.wake();
      });
      control.abort("first");
      assertTrue(control.awaitSessions(() -> cancels.get() >= 2, GRACE_MILLIS));
      assertEquals("first", control.abortedBecause());
    } finally {
      control.over();
    }
  }

  @Test
  void aCancelByTheCallerRunsOnTheCallerAndAnAbortAfterItRunsNothingOnTheReportingThread() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      Thread self = Thread.currentThread();
      AtomicInteger byCaller = new AtomicInteger();
      AtomicInteger byOthers = new AtomicInteger();
      control.onCancel(() -> {
        if (Thread.currentThread() == self) {
          byCaller.incrementAndGet();
        } else {
          byOthers.incrementAndGet();
          control.wake();
        }
      });
      control.cancel();
      control.cancel();
      assertEquals(2, byCaller.get());
      control.abort("the heap ran out");
      control.abort("the heap ran out again");
      assertEquals(2, byCaller.get(), "the abort cancelled on the reporting thread");
      assertTrue(control.awaitSessions(() -> byOthers.get() >= 1, GRACE_MILLIS));
      assertEquals("the heap ran out", control.abortedBecause());
    } finally {
      control.over();
    }
  }

  @Test
  void afterAnAbortTheRunIsCancelledAgainWhileItWaitsButNeverByItsOwnThreadAndNotBeforeNorAfterIt()
      throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      Thread self = Thread.currentThread();
      AtomicInteger byItself = new AtomicInteger();
      AtomicInteger byOthers = new AtomicInteger();
      List<String> where = new java.util.concurrent.CopyOnWriteArrayList<>();
      control.onCancel(() -> {
        if (Thread.currentThread() == self) {
          byItself.incrementAndGet();
        } else {
          byOthers.incrementAndGet();
          where.add(Thread.currentThread().getName());
        }
      });
      AtomicInteger looks = new AtomicInteger();
      // What it waits for happens at the third look; the wait itself never waits.
      RunControl.TimedWait thirdLook = nanos -> looks.incrementAndGet() % 3 == 0;
      assertTrue(control.awaitSessions(thirdLook, GRACE_MILLIS));
      assertEquals(3, looks.get());
      assertEquals(0, byItself.get() + byOthers.get());

      control.abort("the heap ran out");
      // Waits until the run has been cancelled (the abort's cancel) and again, by another thread.
      RunControl.TimedWait twoMore = nanos -> {
        java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        return byOthers.get() >= 2;
      };
      assertTrue(control.awaitSessions(twoMore, GRACE_MILLIS));
      assertEquals(0, byItself.get(), "the reporting or waiting thread cancelled itself");
      assertEquals(AbortCancels.THREAD_NAME, where.get(0));
      // The run's waits over: no pass of this run begins after it.
      control.over();
      int after = byOthers.get();
      // Another run's abort after it: served (so the canceller has made a round since) ...
      RunControl other = new RunControl(GRACE_MILLIS);
      try {
        AtomicInteger otherCancels = new AtomicInteger();
        other.onCancel(() -> {
          otherCancels.incrementAndGet();
          other.wake();
        });
        other.abort("the heap ran out");
        assertTrue(other.awaitSessions(() -> otherCancels.get() >= 3, GRACE_MILLIS));
      } finally {
        other.over();
      }
      // ... and this one not again (a pass under way at over() may have ended after it: one at most).
      assertTrue(byOthers.get() - after <= 1, "cancelled " + (byOthers.get() - after) + " times after over()");
    } finally {
      control.over();
    }
  }

  @Test
  // A watchdog only: on the old code the recanceller died at the first throw, and the wait below
  // waited for the grace (a day).
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCancelThatThrowsDoesNotEndTheRecancels() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      AtomicInteger byOthers = new AtomicInteger();
      control.onCancel(() -> {
        byOthers.incrementAndGet();
        // A session's close that throws, every time.
        throw new IllegalStateException("a close that always fails");
      });
      control.abort("the heap ran out");
      RunControl.TimedWait threeMore = nanos -> {
        java.util.concurrent.locks.LockSupport.parkNanos(nanos);
        return byOthers.get() >= 3;
      };
      assertTrue(control.awaitSessions(threeMore, GRACE_MILLIS));
    } finally {
      control.over();
    }
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void theCancelsOfAnAbortedRunEndWithItsGrace() throws Exception {
    long graceMillis = 200;
    // The run's clock, moved only here: no outcome hangs on how fast the canceller is served.
    AtomicLong now = new AtomicLong();
    RunControl control = new RunControl(graceMillis, now::get);
    RunControl later = new RunControl(GRACE_MILLIS);
    try {
      AtomicInteger cancels = new AtomicInteger();
      control.onCancel(() -> {
        cancels.incrementAndGet();
        control.wake();
      });
      control.abort("the heap ran out");
      // Served within its grace (the clock stands still): cancelled at least once.
      assertTrue(control.awaitSessions(() -> cancels.get() >= 1, graceMillis));
      // Its grace has run out.
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(graceMillis));
      // Another aborted run, listed before the first: each round of the canceller serves it first,
      // so the round of its first cancel finds the first run past its grace, and no round after it
      // cancels the first run (a round under way when the clock moved ended before that one).
      AtomicInteger laterCancels = new AtomicInteger();
      AtomicInteger firstAtLater = new AtomicInteger(-1);
      later.onCancel(() -> {
        firstAtLater.compareAndSet(-1, cancels.get());
        laterCancels.incrementAndGet();
        later.wake();
      });
      later.abort("the heap ran out");
      assertTrue(later.awaitSessions(() -> laterCancels.get() >= 3, GRACE_MILLIS));
      assertTrue(firstAtLater.get() >= 1, "the first run was never cancelled: " + firstAtLater.get());
      assertEquals(firstAtLater.get(), cancels.get(), "cancelled after its grace");
    } finally {
      later.over();
      control.over();
    }
  }

  @Test
  void aWaitThatLooksAllocatesNothingPerLookEvenAfterAnAbort() throws Exception {
    java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no com.sun.management.ThreadMXBean here");
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
        "this JVM does not count a thread's allocation");
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      control.onCancel(() -> { });
      // After an abort: the path taken with the heap full, which also cancels again.
      control.abort("the heap ran out");
      long[] looksLeft = new long[1];
      // Wakes its own thread, so that every look comes at once: as a run's thread is woken by
      // every session's end.
      RunControl.Check lastLook = () -> {
        if (--looksLeft[0] <= 0L) {
          return true;
        }
        control.wake();
        return false;
      };
      long self = Thread.currentThread().getId();
      looks(control, lastLook, looksLeft, 1_000);
      long before = threads.getThreadAllocatedBytes(self);
      looks(control, lastLook, looksLeft, 10);
      long few = threads.getThreadAllocatedBytes(self) - before;
      before = threads.getThreadAllocatedBytes(self);
      looks(control, lastLook, looksLeft, 20_000);
      long many = threads.getThreadAllocatedBytes(self) - before;
      // 19,990 looks more; one object each would be 320,000 bytes or more.
      assertTrue(many - few < 1024, "10 looks allocated " + few + " bytes, 20,000 looks " + many);
    } finally {
      control.over();
    }
  }

  private static void looks(RunControl control, RunControl.Check check, long[] looksLeft, long looks)
      throws InterruptedException {
    looksLeft[0] = looks;
    assertTrue(control.awaitSessions(check, GRACE_MILLIS));
  }

  @Test
  void aWaitThatLooksHasTheRunCancelledAfterAnAbortNotBeforeAndEndsWithTheGrace() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      Thread self = Thread.currentThread();
      AtomicInteger byItself = new AtomicInteger();
      AtomicInteger byOthers = new AtomicInteger();
      control.onCancel(() -> {
        if (Thread.currentThread() == self) {
          byItself.incrementAndGet();
        } else {
          byOthers.incrementAndGet();
          control.wake();
        }
      });
      AtomicInteger looks = new AtomicInteger();
      RunControl.Check thirdLook = () -> {
        if (looks.incrementAndGet() % 3 == 0) {
          return true;
        }
        control.wake();
        return false;
      };
      assertTrue(control.awaitSessions(thirdLook, GRACE_MILLIS));
      assertEquals(3, looks.get());
      assertEquals(0, byItself.get() + byOthers.get());

      control.abort("the heap ran out");
      // Ends once another thread has cancelled (each such cancel wakes it).
      assertTrue(control.awaitSessions(() -> byOthers.get() >= 1, GRACE_MILLIS));
      assertEquals(0, byItself.get(), "the reporting or waiting thread cancelled itself");

      // A grace that has run out: what it waits for is looked at once more, then it gives up.
      RunControl.Check never = () -> {
        looks.incrementAndGet();
        return false;
      };
      assertFalse(control.awaitSessions(never, 0L));
      assertEquals(4, looks.get());
    } finally {
      control.over();
    }
  }

  @Test
  void aWaitThatLooksEndsOnceWhatItWaitsForHappenedOnOtherThreads() throws Exception {
    RunControl control = new RunControl(GRACE_MILLIS);
    try {
      AtomicInteger ended = new AtomicInteger();
      int sessions = 8;
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < sessions; i++) {
        Thread t = new Thread(() -> {
          ended.incrementAndGet();
          control.wake();
        }, "session-" + i);
        threads.add(t);
      }
      for (Thread t : threads) {
        t.start();
      }
      assertTrue(control.awaitSessions(() -> ended.get() == sessions, GRACE_MILLIS));
      assertEquals(sessions, ended.get());
      for (Thread t : threads) {
        t.join();
      }
    } finally {
      control.over();
    }
  }
}
