package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunAbortedException;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A MINA session whose close runs out of heap inside MINA (here a filter's close throws the
 * error, as an allocation there would) is closed by the aborted run's cancels all the same, and
 * the run ends with no session left behind. MINA marks a session closing before its filters
 * close it, so its {@code closeNow} does nothing the second time: the transport's next close
 * hands the session to its processor instead. Before, the transport counted itself closed at
 * the first try, every later close did nothing, the connection's close was never reported, and
 * the run waited out its close wait ("had not ended 30000 ms later") with the sockets open.
 */
class FailedMinaCloseTest {
  private static final int SESSIONS = 3;
  /** Far longer than the run takes when it works: without the second close it waits all of it. */
  private static final long CLOSE_WAIT_SECONDS = 30;

  static List<Mode> modes() {
    return List.of(Mode.SYNC, Mode.THREADS);
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 120, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatRanOutOfHeapInMinaIsMadeAgainAndTheAbortedRunLeavesNoSessionBehind(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); FailingCloses connector = new FailingCloses(MinaConnector.tcp(),
             () -> new OutOfMemoryError("Java heap space"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(30, TimeUnit.SECONDS)).closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(Echo.class, SESSIONS));
      assertTrue(e.getMessage().startsWith("the run was aborted: the heap ran out (java.lang.OutOfMemoryError:"
          + " Java heap space, met by a session closing its transport on thread "), e.getMessage());
      assertFalse(e.getMessage().contains("had not ended"), e.getMessage());
      assertTrue(connector.failedCloses.get() >= 1, "failed closes: " + connector.failedCloses.get());
      // Every connection closed, and its close reported, before run() returned: the connector
      // is closed only after this.
      assertEquals(0, connector.mina.openCount());
      RunResult<?> result = e.result();
      assertEquals(SESSIONS, result.outcomes().size());
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<?> outcome = result.outcome(i);
        assertTrue(outcome.status() == Outcome.Status.CANCELLED
            || outcome.status() == Outcome.Status.SUCCEEDED && ("session " + i).equals(outcome.value()),
            i + ": " + outcome);
      }
    }
  }

  /**
   * A filter's close that throws an {@code Exception} does not make the close throw: MINA hands
   * it to the handler, returns as if the session were closed, and never closes it. The transport
   * closes it through the processor, so the close is reported and the session's place freed; the
   * run goes on with no abort. Before, the session kept its place for ever, and with
   * {@code maxInFlight(1)} the next session was never admitted: the run did not return.
   */
  @ParameterizedTest
  @MethodSource("modes")
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aFiltersCloseThatThrowsAnExceptionStillClosesTheSessionAndFreesItsPlace(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); FailingCloses connector = new FailingCloses(MinaConnector.tcp(),
             () -> new IllegalStateException("close refused by a filter"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .maxInFlight(1).timeout(Timeout.of(30, TimeUnit.SECONDS)).closeWait(30, TimeUnit.SECONDS).build()) {
      RunResult<String> result = runner.run(Echo.class, SESSIONS);
      assertEquals(SESSIONS, connector.failedCloses.get());
      assertEquals(0, connector.mina.openCount());
      assertEquals(SESSIONS, result.outcomes().size());
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.SUCCEEDED, outcome.status(), i + ": " + outcome);
        assertEquals("session " + i, outcome.value());
      }
    }
  }

  /** MinaConnector's transports, each with a filter whose first close throws what {@code failure} makes. */
  private static final class FailingCloses implements Connector {
    final MinaConnector mina;
    final AtomicInteger failedCloses = new AtomicInteger();
    final Supplier<Throwable> failure;

    FailingCloses(MinaConnector mina, Supplier<Throwable> failure) {
      this.mina = mina;
      this.failure = failure;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      MinaTransport transport = mina.connect(remote, timeout);
      transport.state().session().getFilterChain().addFirst("failing-close", new IoFilterAdapter() {
        private boolean failed;

        @Override
        public void filterClose(NextFilter next, IoSession session) throws Exception {
          if (!failed) {
            failed = true;
            failedCloses.incrementAndGet();
            Throwable t = failure.get();
            if (t instanceof Error) {
              throw (Error) t;
            }
            throw (Exception) t;
          }
          next.filterClose(session);
        }
      });
      return transport;
    }

    @Override
    public void close() {
      mina.close();
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
