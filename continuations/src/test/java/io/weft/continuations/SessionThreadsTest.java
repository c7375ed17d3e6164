package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The bookkeeping of a THREADS or VIRTUAL_THREADS run's session threads, with real threads: a
 * thread whose session ended is kept until it is gone (the run's end waits for it), and the threads
 * gone are dropped at the next ends.
 */
class SessionThreadsTest {
  @Test
  void aThreadIsRunningFromItsStartToItsSessionsEnd() throws Exception {
    SessionThreads threads = new SessionThreads(5);
    Thread gone = goneThread();
    threads.started(3, gone);
    assertSame(gone, threads.running(3));
    assertNull(threads.running(2));
    threads.ended(3, gone);
    assertNull(threads.running(3));
  }

  /**
   * The aborted run's cancel looks at every slot every 50 ms (ThreadRunner): that look must not
   * wait for a session thread's end in its bookkeeping, nor hold what the end needs. Here the test
   * holds the monitor the ends take (shown: an end blocks on it) while another thread looks.
   */
  @Test
  void theCancelsLookAtTheRunningThreadsWaitsForNoEndInItsBookkeeping() throws Exception {
    SessionThreads threads = new SessionThreads(2);
    Thread first = goneThread();
    Thread second = goneThread();
    threads.started(0, first);
    threads.started(1, second);
    Thread[] seen = new Thread[1];
    Thread end = new Thread(() -> threads.ended(1, second), "session-1-ending");
    Thread look = new Thread(() -> seen[0] = threads.running(0), "cancel-looking");
    synchronized (threads) {
      end.start();
      // Waits for a state, no bound: the end must be held by this monitor, or the test shows nothing.
      while (end.getState() != Thread.State.BLOCKED) {
        assertTrue(end.isAlive(), "an end did not take the monitor held here: this test no longer shows anything");
        end.join(1);
      }
      look.start();
      while (look.isAlive()) {
        assertTrue(look.getState() != Thread.State.BLOCKED,
            "the cancel's look at the running threads waits for the monitor a session thread's end holds");
        look.join(1);
      }
    }
    end.join();
    assertSame(first, seen[0]);
    assertNull(threads.running(1));
  }

  @Test
  void aLongRunKeepsNoThreadThatIsGone() throws Exception {
    int sessions = 2_000;
    SessionThreads threads = new SessionThreads(sessions);
    for (int i = 0; i < sessions; i++) {
      endOfAThreadGone(threads, i);
      // The one before it was gone, so dropped: only this one is kept.
      assertEquals(1, threads.kept(), "kept after session " + i + "'s end");
    }
    assertNull(threads.stillEnding());
    assertEquals(0, threads.kept());
  }

  @Test
  void aThreadStillGoingAfterItsSessionsEndIsKeptUntilItIsGone() throws Exception {
    int sessions = 1_000;
    SessionThreads threads = new SessionThreads(sessions);
    CountDownLatch release = new CountDownLatch(1);
    Thread going = new Thread(() -> SessionThreadEndTest.awaitQuietly(release), "still-going");
    going.start();
    try {
      threads.started(0, going);
      threads.ended(0, going);
      for (int i = 1; i < sessions; i++) {
        endOfAThreadGone(threads, i);
        // The one still going and the one just ended, never those gone.
        assertTrue(threads.kept() <= 2, "kept " + threads.kept() + " after session " + i + "'s end");
      }
      assertSame(going, threads.stillEnding());
    } finally {
      release.countDown();
      going.join();
    }
    assertNull(threads.stillEnding());
    assertEquals(0, threads.kept());
  }

  @Test
  void theThreadsOfABurstOfEndsAreDroppedAtTheNextEndOnceGone() throws Exception {
    int burst = 100;
    SessionThreads threads = new SessionThreads(burst + 1);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> going = new ArrayList<>();
    try {
      for (int i = 0; i < burst; i++) {
        Thread t = new Thread(() -> SessionThreadEndTest.awaitQuietly(release), "still-going-" + i);
        t.start();
        going.add(t);
        threads.started(i, t);
        threads.ended(i, t);
      }
      assertEquals(burst, threads.kept());
    } finally {
      release.countDown();
      for (Thread t : going) {
        t.join();
      }
    }
    endOfAThreadGone(threads, burst);
    // All of the burst are gone: only the last end's thread is kept.
    assertEquals(1, threads.kept());
  }

  @Test
  void everyThreadOfARunCanBeKeptAtOnce() throws Exception {
    int sessions = 4;
    SessionThreads threads = new SessionThreads(sessions);
    List<CountDownLatch> releases = new ArrayList<>();
    List<Thread> going = new ArrayList<>();
    try {
      for (int i = 0; i < sessions; i++) {
        CountDownLatch release = new CountDownLatch(1);
        Thread t = new Thread(() -> SessionThreadEndTest.awaitQuietly(release), "still-going-" + i);
        t.start();
        releases.add(release);
        going.add(t);
        threads.started(i, t);
        threads.ended(i, t);
      }
      assertEquals(sessions, threads.kept());
      for (int i = 0; i < sessions; i++) {
        Thread waitedFor = threads.stillEnding();
        assertTrue(going.contains(waitedFor), String.valueOf(waitedFor));
        int at = going.indexOf(waitedFor);
        releases.get(at).countDown();
        waitedFor.join();
      }
      assertNull(threads.stillEnding());
    } finally {
      releases.forEach(CountDownLatch::countDown);
      for (Thread t : going) {
        t.join();
      }
    }
  }

  /** Session {@code slot}'s thread starts and ends its session, and is gone by the end's bookkeeping. */
  private static void endOfAThreadGone(SessionThreads threads, int slot) throws InterruptedException {
    Thread gone = goneThread();
    threads.started(slot, gone);
    threads.ended(slot, gone);
  }

  private static Thread goneThread() throws InterruptedException {
    Thread t = new Thread(() -> { }, "gone");
    t.start();
    t.join();
    return t;
  }
}
