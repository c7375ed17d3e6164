package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An abort cancels a run once, however many threads report the heap's end: the reports of
 * hundreds of failing sessions must not each go over every session of every run. A cancel that
 * threw is made by the next report; while the run's thread waits for its sessions after an
 * abort (and not before one) the run is cancelled again every poll, by a thread of its own, never
 * by the waiting thread, which a close that never returns would keep past the grace. The wait that looks instead of
 * blocking needs no heap: a full heap cannot keep it past the abort's grace.
 */
class RunControlTest {
  /** A grace that no test here can outlast. */
  private static final long GRACE_MILLIS = TimeUnit.DAYS.toMillis(1);

  @Test
  void anAbortReportedByManyThreadsAtOnceCancelsOnceAndKeepsOneReason() throws Exception {
    RunControl control = new RunControl();
    AtomicInteger cancels = new AtomicInteger();
    control.onCancel(cancels::incrementAndGet);
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
    assertEquals(1, cancels.get());
    assertTrue(control.isCancelled());
    String kept = control.abortedBecause();
    assertTrue(reasons.contains(kept), kept);

    for (int i = 0; i < 100; i++) {
      control.abort("a later report " + i);
    }
    assertEquals(1, cancels.get());
    assertSame(kept, control.abortedBecause());
  }

  @Test
  void anAbortsCancelThatThrewIsMadeByTheNextReportAndThenNoMore() {
    RunControl control = new RunControl();
    AtomicInteger cancels = new AtomicInteger();
    control.onCancel(() -> {
      if (cancels.incrementAndGet() == 1) {
        throw new OutOfMemoryError("Java heap space");
      }
    });
    assertThrows(OutOfMemoryError.class, () -> control.abort("first"));
    assertEquals(1, cancels.get());
    control.abort("second");
    assertEquals(2, cancels.get());
    control.abort("third");
    assertEquals(2, cancels.get());
    assertEquals("first", control.abortedBecause());
  }

  @Test
  void aCancelByTheCallerAlwaysRunsAndAnAbortAfterItStillCancelsOnce() {
    RunControl control = new RunControl();
    AtomicInteger cancels = new AtomicInteger();
    control.onCancel(cancels::incrementAndGet);
    control.cancel();
    control.cancel();
    assertEquals(2, cancels.get());
    control.abort("the heap ran out");
    control.abort("the heap ran out again");
    assertEquals(3, cancels.get());
    assertEquals("the heap ran out", control.abortedBecause());
  }

  @Test
  void afterAnAbortTheRunIsCancelledAgainWhileItWaitsButNeverByItsOwnThreadAndNotBefore() throws Exception {
    RunControl control = new RunControl();
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
    assertEquals(null, control.recanceller());

    // The abort's cancel runs on the thread that reports it (here, this one).
    control.abort("the heap ran out");
    assertEquals(1, byItself.get());
    // Waits until the run has been cancelled again twice, by another thread.
    RunControl.TimedWait twoMore = nanos -> {
      java.util.concurrent.locks.LockSupport.parkNanos(nanos);
      return byOthers.get() >= 2;
    };
    assertTrue(control.awaitSessions(twoMore, GRACE_MILLIS));
    assertEquals(1, byItself.get(), "the waiting thread cancelled again itself");
    assertEquals(RunControl.RECANCEL_THREAD_NAME, where.get(0));
    Thread recanceller = control.recanceller();
    // The run's waits over: it stops.
    control.over();
    recanceller.join();
    int after = byOthers.get();
    assertTrue(control.awaitSessions(thirdLook, GRACE_MILLIS));
    assertEquals(after, byOthers.get());
  }

  @Test
  // A watchdog only: on the old code the recanceller died at the first throw, and the wait below
  // waited for the grace (a day).
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCancelThatThrowsDoesNotEndTheRecancels() throws Exception {
    RunControl control = new RunControl();
    Thread self = Thread.currentThread();
    AtomicInteger byOthers = new AtomicInteger();
    control.onCancel(() -> {
      if (Thread.currentThread() != self) {
        byOthers.incrementAndGet();
        // A session's close that throws, every time.
        throw new IllegalStateException("a close that always fails");
      }
    });
    control.abort("the heap ran out");
    RunControl.TimedWait threeMore = nanos -> {
      java.util.concurrent.locks.LockSupport.parkNanos(nanos);
      return byOthers.get() >= 3;
    };
    assertTrue(control.awaitSessions(threeMore, GRACE_MILLIS));
    Thread recanceller = control.recanceller();
    assertTrue(recanceller.isAlive(), "the recanceller died of a close that threw");
    control.over();
    recanceller.join();
  }

  @Test
  void aWaitThatLooksAllocatesNothingPerLookEvenAfterAnAbort() throws Exception {
    java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "no com.sun.management.ThreadMXBean here");
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled(),
        "this JVM does not count a thread's allocation");
    RunControl control = new RunControl();
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
    control.over();
  }

  private static void looks(RunControl control, RunControl.Check check, long[] looksLeft, long looks)
      throws InterruptedException {
    looksLeft[0] = looks;
    assertTrue(control.awaitSessions(check, GRACE_MILLIS));
  }

  @Test
  void aWaitThatLooksHasTheRunCancelledAgainAfterAnAbortNotBeforeAndEndsWithTheGrace() throws Exception {
    RunControl control = new RunControl();
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
    assertEquals(1, byItself.get());
    // Ends once another thread has cancelled again (each such cancel wakes it).
    assertTrue(control.awaitSessions(() -> byOthers.get() >= 1, GRACE_MILLIS));
    assertEquals(1, byItself.get(), "the waiting thread cancelled again itself");

    // A grace that has run out: what it waits for is looked at once more, then it gives up.
    RunControl.Check never = () -> {
      looks.incrementAndGet();
      return false;
    };
    assertFalse(control.awaitSessions(never, 0L));
    assertEquals(4, looks.get());
    control.over();
    control.recanceller().join();
  }

  @Test
  void aWaitThatLooksEndsOnceWhatItWaitsForHappenedOnOtherThreads() throws Exception {
    RunControl control = new RunControl();
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
  }
}
