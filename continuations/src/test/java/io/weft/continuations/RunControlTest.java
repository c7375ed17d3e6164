package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * An abort cancels a run once, however many threads report the heap's end: the reports of
 * hundreds of failing sessions must not each go over every session of every run. A cancel that
 * threw is made by the next report; the run's own thread cancels again at every look while it
 * waits for its sessions after an abort, and not before one.
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
  void aRunsOwnThreadCancelsAgainAtEveryLookAfterAnAbortButNotBefore() throws Exception {
    RunControl control = new RunControl();
    AtomicInteger cancels = new AtomicInteger();
    control.onCancel(cancels::incrementAndGet);
    AtomicInteger looks = new AtomicInteger();
    // What it waits for happens at the third look; the wait itself never waits.
    RunControl.TimedWait thirdLook = nanos -> looks.incrementAndGet() % 3 == 0;

    assertTrue(control.awaitSessions(thirdLook, GRACE_MILLIS));
    assertEquals(3, looks.get());
    assertEquals(0, cancels.get());

    control.abort("the heap ran out");
    assertEquals(1, cancels.get());
    assertTrue(control.awaitSessions(thirdLook, GRACE_MILLIS));
    assertEquals(6, looks.get());
    // The abort's cancel, then one after each of the two looks that found the sessions not ended.
    assertEquals(3, cancels.get());
  }
}
