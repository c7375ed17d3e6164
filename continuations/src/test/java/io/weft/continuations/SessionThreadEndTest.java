package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.continuations.testing.FirstCloseFailsConnector;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Nothing leaves a session's thread for the JDK's uncaught-exception handler: what its frame's
 * last steps throw (here a close that fails with a {@code NoClassDefFoundError}, which the frame
 * lets through after freeing the session's place) is logged by Weft, or reported if it is the
 * heap's end. On a virtual thread that handler runs on the carrier, and a handler with no room to
 * print (an {@code OutOfMemoryError} thrown from it) ends the carrier, a thread of the JDK's
 * scheduler, with every virtual thread queued on it: in a full heap that left session 16's
 * VIRTUAL_THREADS children with no carrier at all, their sessions never to end. The run and its
 * outcomes are as before: each session has its echo, and {@code run()} returns. Before, the
 * error reached the handler (the default one here, which the JDK calls for both kinds of thread).
 */
class SessionThreadEndTest {
  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void whatASessionsThreadThrowsAfterItsFrameNeverReachesTheUncaughtExceptionHandler(Mode mode) throws Exception {
    int sessions = 3;
    List<String> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(t.getName() + ": " + e));
    try (EchoServer tcp = EchoServer.tcp();
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.failingWithError(1,
             () -> new NoClassDefFoundError("Could not initialize class a.ClassOfTheClose"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(30, TimeUnit.SECONDS)).build()) {
      // run() returns once every session's thread has ended (the last one joined the one before
      // it, and so on): by then the JDK has called the handler of any thread that would call it.
      RunResult<String> result = runner.run(FailedCloseTest.Echo.class, sessions);
      assertEquals(sessions, connector.failedCloses());
      for (int i = 0; i < sessions; i++) {
        assertEquals(Outcome.Status.SUCCEEDED, result.outcome(i).status(), i + ": " + result.outcome(i));
        assertEquals("session " + i, result.outcome(i).value());
      }
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
    }
    assertEquals(List.of(), uncaught, "what reached the uncaught-exception handler");
  }
}
