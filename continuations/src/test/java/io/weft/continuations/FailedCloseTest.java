package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.FirstCloseFailsConnector;
import io.weft.testsupport.EchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A session whose transport's close fails for want of heap does not keep its place in the run:
 * that close has not reported the connection closed (which frees the place, see
 * {@code ReportsClose}), so the aborted run's cancels close it again, and the run ends with every
 * session accounted for and every connection closed, long before its close wait. Before, the
 * session forgot its transport, nothing closed it until the run's connector was closed after
 * the run, and the run waited out its close wait and left the sessions behind (seen in
 * RunOutOfHeapTest's THREADS child: "45 of them had not ended 30000 ms later").
 */
class FailedCloseTest {
  private static final int SESSIONS = 3;
  /** Far longer than the run takes when it works: without the second close it waits all of it. */
  private static final long CLOSE_WAIT_SECONDS = 60;

  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.SYNC, Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  void aCloseThatRanOutOfHeapIsMadeAgainAndTheAbortedRunLeavesNoSessionBehind(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); FirstCloseFailsConnector connector = new FirstCloseFailsConnector();
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(30, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(Echo.class, SESSIONS));
      assertTrue(e.getMessage().startsWith("the run was aborted: the heap ran out (java.lang.OutOfMemoryError:"
          + " Java heap space, met by a session closing its transport on thread "), e.getMessage());
      assertFalse(e.getMessage().contains("had not ended"), e.getMessage());
      // Every connection closed before run() returned, by the run itself: the connector is
      // closed only after this.
      assertEquals(0, connector.openTransports());
      RunResult<?> result = e.result();
      assertEquals(SESSIONS, result.outcomes().size());
      // A session ended with its echo before the abort, or was cancelled by it (SYNC: the first
      // session's close fails once it has its echo, and the others are cancelled unstarted).
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<?> outcome = result.outcome(i);
        assertTrue(outcome.status() == Outcome.Status.CANCELLED
            || outcome.status() == Outcome.Status.SUCCEEDED && ("session " + i).equals(outcome.value()),
            i + ": " + outcome);
      }
      if (mode.kind() == Mode.Kind.SYNC) {
        assertEquals(Outcome.Status.SUCCEEDED, result.outcome(0).status());
      }
      assertTrue(connector.failedCloses() >= 1, "failed closes: " + connector.failedCloses());
    }
  }

  /**
   * A close that fails for another reason than the heap: nothing aborts the run, and nothing
   * would close the transport again, so its close may never be reported. The session's place is
   * then freed at its task's end, as over a transport that does not report its close: every
   * session runs and the run returns (before, it waited for ever for the report, with the later
   * sessions never admitted; and in SYNC the close's error ended the run).
   */
  @ParameterizedTest
  @MethodSource("modes")
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatFailsOtherwiseFreesThePlaceAtTheTasksEnd(Mode mode) throws Exception {
    int sessions = 4;
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWith(
             () -> new IllegalStateException("close failed"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(1).timeout(Timeout.of(30, TimeUnit.SECONDS))
             .closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      RunResult<String> result = runner.run(Echo.class, sessions);
      assertEquals(sessions, result.outcomes().size());
      assertEquals(sessions, connector.failedCloses());
      // Each session keeps its task's outcome, in every mode (the close's failure is logged).
      for (int i = 0; i < sessions; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.SUCCEEDED, outcome.status(), i + ": " + outcome);
        assertEquals("session " + i, outcome.value());
      }
    }
  }

  /**
   * A close that fails twice (the frame's close and its close again) with an {@code OutOfMemoryError}
   * that is not the heap's ("Direct buffer memory", "unable to create native thread"): the heap's
   * end is not reported, no abort cancels the session again, so its place is freed at its task's
   * end, as for any other failed close. Before, the session kept the place for a close report that
   * never came, and the run (not aborted, so with no grace) waited for ever.
   */
  @ParameterizedTest
  @MethodSource("modes")
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatRunsOutOfSomethingElseThanTheHeapFreesThePlaceAtTheTasksEnd(Mode mode) throws Exception {
    int sessions = 3;
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWithError(2,
             () -> new OutOfMemoryError("Direct buffer memory"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(1).timeout(Timeout.of(30, TimeUnit.SECONDS))
             .closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      RunResult<String> result = runner.run(Echo.class, sessions);
      assertEquals(2 * sessions, connector.failedCloses());
      for (int i = 0; i < sessions; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.SUCCEEDED, outcome.status(), i + ": " + outcome);
        assertEquals("session " + i, outcome.value());
      }
    }
  }

  /**
   * A caller's cancel in SYNC whose close of the running session's transport throws (after
   * closing it): the cancel returns normally, the session ends cancelled and the rest are never
   * started. Without SyncRunner's catch the close's exception came out of the caller's
   * {@code cancel()}.
   */
  @org.junit.jupiter.api.Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSyncCancelWhoseCloseThrowsReturnsAndCancelsTheRun() throws Exception {
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.throwingAfterClosing(
             () -> new IllegalStateException("close failed"));
         SessionRunner runner = SessionRunner.builder().mode(Mode.SYNC).connector(connector).address(tcp.address())
             .timeout(Timeout.of(60, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
      Silent.reading = new java.util.concurrent.CountDownLatch(1);
      Thread canceller = new Thread(() -> {
        try {
          Silent.reading.await();
          runner.cancel();
        } catch (Throwable t) {
          thrown.set(t);
        }
      }, "canceller");
      canceller.start();
      RunResult<String> result = runner.run(Silent.class, 2);
      canceller.join();
      assertEquals(null, thrown.get(), "the caller's cancel threw");
      assertEquals(1, connector.failedCloses());
      assertEquals(Outcome.Status.CANCELLED, result.outcome(0).status(), result.outcome(0).toString());
      assertEquals(Outcome.Status.CANCELLED, result.outcome(1).status(), result.outcome(1).toString());
    }
  }

  /**
   * A cancel whose close of one session's transport fails with an {@code Error} that is not the
   * JVM's ({@code NoClassDefFoundError}: a class whose initialiser once ran out of heap in a close
   * fails every later close the same way): the other sessions are cancelled all the same, and the
   * caller's cancel returns. Before, the loops caught only {@code OutOfMemoryError} and
   * {@code RuntimeException}: the error came out of the caller's {@code cancel()}, and the sessions
   * after the failing one were never cancelled.
   */
  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCancelWhoseCloseFailsWithALinkageErrorCancelsTheOtherSessionsAndReturns(Mode mode) throws Exception {
    int sessions = 3;
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWithError(1,
             () -> new NoClassDefFoundError("Could not initialize class a.ClassOfTheClose"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(60, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
      // SYNC runs one session at a time; the others all read at once.
      Silent.reading = new java.util.concurrent.CountDownLatch(mode.kind() == Mode.Kind.SYNC ? 1 : sessions);
      Thread canceller = new Thread(() -> {
        try {
          Silent.reading.await();
          runner.cancel();
          // The failed close kept its transport: this cancel closes it (the socket's own close).
          runner.cancel();
        } catch (Throwable t) {
          thrown.set(t);
        }
      }, "canceller");
      canceller.start();
      RunResult<String> result = runner.run(Silent.class, sessions);
      canceller.join();
      assertEquals(null, thrown.get(), "the caller's cancel threw");
      // Each transport's first close fails: in THREADS and VIRTUAL_THREADS every session's close
      // was tried, past the first that failed.
      assertEquals(mode.kind() == Mode.Kind.SYNC ? 1 : sessions, connector.failedCloses());
      for (int i = 0; i < sessions; i++) {
        assertEquals(Outcome.Status.CANCELLED, result.outcome(i).status(), i + ": " + result.outcome(i));
      }
    }
  }

  /** Waits for a line that never comes (it writes none to echo). */
  public static final class Silent implements SessionTask<String> {
    static volatile java.util.concurrent.CountDownLatch reading;

    @Override
    public String run(Transport transport, int index) throws IOException {
      reading.countDown();
      return transport.readLineStrict(64);
    }
  }

  /** Exchanges one line with the echo server. */
  public static final class Echo implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws IOException {
      transport.writeLine("session " + index);
      transport.flush();
      return transport.readLineStrict(64);
    }
  }
}
