package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.continuations.testing.FirstCloseFailsConnector;
import io.weft.testsupport.EchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The end of a THREADS or VIRTUAL_THREADS run: no session thread waits for another, and
 * {@code run()} returns only once every session thread has ended, its last steps after its session's
 * end (here its uncaught-exception handler) included. Before, each ending session thread joined the
 * one that had ended before it, so that the run's joining the last one waited for them all: in
 * VIRTUAL_THREADS each such join was a park and each end an unpark, a submit to the JDK's carrier
 * pool that a full heap can fail (docs/errors.md). Every session's close here fails with an error
 * that is not the heap's, which the runner hands to the thread's uncaught-exception handler after
 * its session's end: the test's handler holds session 0's thread there.
 */
class NoSessionThreadWaitsTest {
  static List<Mode> modes() {
    return SessionThreadEndTest.modes();
  }

  /** Fails 2/2 on main 86564bf5 (THREADS, VIRTUAL_THREADS; JDK 25): session 1's thread waits in a join of session 0's. */
  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSessionThreadsEndWaitsForNoOtherSessionThread(Mode mode) throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Recorded.reset(2);
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      if (t.getName().equals("weft-session-0")) {
        held.countDown();
        SessionThreadEndTest.awaitQuietly(release);
      }
    });
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWithError(1,
             () -> new NoClassDefFoundError("Could not initialize class a.ClassOfTheClose"));
         // One at a time: session 1 starts once session 0's place is back, before its handler.
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(1).timeout(Timeout.of(30, TimeUnit.SECONDS)).closeWait(60, TimeUnit.SECONDS).build()) {
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread run = new Thread(() -> {
        try {
          runner.run(Recorded.class, 2);
        } catch (Throwable t) {
          failed.set(t);
        }
      }, "the-run");
      run.start();
      String waiting = null;
      try {
        held.await();
        // Session 0's thread is in its last steps, held; session 1 runs and ends, and so must its thread.
        Thread second = Recorded.thread(1);
        while (second.isAlive()) {
          if (inJoin(second)) {
            waiting = "session 1's thread waits in a join while session 0's is held: " + stack(second);
            break;
          }
          second.join(10);
        }
      } finally {
        release.countDown();
        run.join();
      }
      assertNull(waiting);
      assertNull(failed.get());
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
  }

  /**
   * Sessions end together, racing; session 0's thread is held in its last steps until the run's
   * thread is seen waiting for a session thread to end or has returned. A run that returned only
   * once every permit was back, without waiting for the threads, fails this every time (a mutant of
   * ThreadRunner without its wait for the threads still ending: 2/2, THREADS and VIRTUAL_THREADS,
   * JDK 25); main passes it (its join chain waits for them too).
   */
  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void runReturnsOnlyOnceEverySessionThreadHasEndedEvenWhenTheirEndsRace(Mode mode) throws Exception {
    int sessions = 16;
    Recorded.reset(sessions);
    Recorded.together = new CyclicBarrier(sessions);
    AtomicReference<Thread> run = new AtomicReference<>();
    AtomicReference<String> returnedWhileHeld = new AtomicReference<>();
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      if (t.getName().equals("weft-session-0")) {
        Thread r = run.get();
        while (r.isAlive() && !inJoin(r)) {
          try {
            r.join(1);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        if (!r.isAlive()) {
          returnedWhileHeld.set("run() returned while session 0's thread was still in its uncaught-exception handler");
        }
      }
    });
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWithError(1,
             () -> new NoClassDefFoundError("Could not initialize class a.ClassOfTheClose"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(sessions).connectPacing(ConnectPacing.NONE).timeout(Timeout.of(30, TimeUnit.SECONDS))
             .closeWait(60, TimeUnit.SECONDS).build()) {
      AtomicReference<Throwable> failed = new AtomicReference<>();
      List<String> alive = new ArrayList<>();
      Thread r = new Thread(() -> {
        try {
          RunResult<String> result = runner.run(Recorded.class, sessions);
          // At once, on the run's thread: every session thread must be gone by now.
          for (int i = 0; i < sessions; i++) {
            if (Recorded.thread(i).isAlive()) {
              alive.add("session " + i);
            }
          }
          if (!result.allSucceeded()) {
            failed.set(new AssertionError(result.failures().toString()));
          }
        } catch (Throwable t) {
          failed.set(t);
        }
      }, "the-run");
      run.set(r);
      r.start();
      r.join();
      // Its handler has settled what it saw once it is gone.
      Recorded.thread(0).join();
      assertNull(failed.get());
      assertNull(returnedWhileHeld.get());
      assertEquals(List.of(), alive, "session threads still alive when run() returned");
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
      Recorded.together = null;
    }
  }

  /** Whether {@code t} waits in {@code Thread.join}. */
  private static boolean inJoin(Thread t) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().equals("java.lang.Thread") && e.getMethodName().equals("join")) {
        return true;
      }
    }
    return false;
  }

  private static String stack(Thread t) {
    StringBuilder b = new StringBuilder();
    for (StackTraceElement e : t.getStackTrace()) {
      b.append("\n\tat ").append(e);
    }
    return b.toString();
  }

  /** Records its session's thread, waits for the others if told to, and returns. */
  public static final class Recorded implements SessionTask<String> {
    private static volatile Thread[] threads;
    private static volatile CountDownLatch[] recorded;
    static volatile CyclicBarrier together;

    static void reset(int sessions) {
      threads = new Thread[sessions];
      CountDownLatch[] latches = new CountDownLatch[sessions];
      for (int i = 0; i < sessions; i++) {
        latches[i] = new CountDownLatch(1);
      }
      recorded = latches;
    }

    /** Session {@code index}'s thread, once its task has run. */
    static Thread thread(int index) throws InterruptedException {
      recorded[index].await();
      return threads[index];
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      threads[index] = Thread.currentThread();
      recorded[index].countDown();
      CyclicBarrier b = together;
      if (b != null) {
        b.await();
      }
      return "session " + index;
    }
  }
}
