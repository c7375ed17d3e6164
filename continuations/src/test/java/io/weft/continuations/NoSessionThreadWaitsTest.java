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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The end of a THREADS or VIRTUAL_THREADS run: no session thread waits for another, and
 * {@code run()} returns only once every session thread has ended, its last steps after its session's
 * end (here its uncaught-exception handler) included (in VIRTUAL_THREADS a join's wake-up is an
 * unpark, a submit to the JDK's carrier pool that a full heap can fail: docs/errors.md). Every
 * session's close here fails with an error
 * that is not the heap's, which the runner hands to the thread's uncaught-exception handler after
 * its session's end: the test's handler holds session 0's thread there.
 */
class NoSessionThreadWaitsTest {
  /** Lets a held session 0 go and restores the default handler even when a watchdog abandoned the test's body. */
  private final CountDownLatch release = new CountDownLatch(1);
  private Thread.UncaughtExceptionHandler before;

  static List<Mode> modes() {
    return SessionThreadEndTest.modes();
  }

  @BeforeEach
  void keepTheDefaultHandler() {
    before = Thread.getDefaultUncaughtExceptionHandler();
  }

  @AfterEach
  void restoreTheDefaultHandler() {
    release.countDown();
    Thread.setDefaultUncaughtExceptionHandler(before);
    Recorded.together = null;
  }

  /** Session 1's thread must end while session 0's is held in its last steps, never wait for it in a join. */
  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSessionThreadsEndWaitsForNoOtherSessionThread(Mode mode) throws Exception {
    CountDownLatch held = new CountDownLatch(1);
    Recorded.reset(2);
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
    }
  }

  /**
   * Sessions end together, racing; session 0's thread is held in its last steps until the run's
   * thread is seen waiting for a session thread to end or has returned. A run that returned once
   * every permit was back, without waiting for the threads still ending, fails it; so does, in
   * VIRTUAL_THREADS, a run's thread seen joining a virtual session thread (a join that allocates,
   * whose wait in a full heap outlasts its deadline: ThreadRunner.awaitGone).
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
    AtomicReference<String> joinedVirtual = new AtomicReference<>();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      if (t.getName().equals("weft-session-0")) {
        Thread r = run.get();
        while (r.isAlive() && !inJoin(r) && !inFrame(r, ThreadRunner.class.getName(), "awaitGone")) {
          try {
            r.join(1);
          } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            return;
          }
        }
        if (mode == Mode.VIRTUAL_THREADS && inJoin(r)) {
          joinedVirtual.set("the run's thread joins a virtual session thread: " + stack(r));
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
      assertNull(joinedVirtual.get());
      assertEquals(List.of(), alive, "session threads still alive when run() returned");
    }
  }

  /** Whether {@code t} waits in {@code Thread.join}. */
  private static boolean inJoin(Thread t) {
    return inFrame(t, "java.lang.Thread", "join");
  }

  /** Whether {@code t} is in method {@code method} of class {@code className}. */
  private static boolean inFrame(Thread t, String className, String method) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().equals(className) && e.getMethodName().equals(method)) {
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
