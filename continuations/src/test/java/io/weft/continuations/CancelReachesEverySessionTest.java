package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.continuations.testing.FirstCloseFailsConnector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A cancel whose close of one session's transport throws still reaches every other session: it
 * closes their transports, so their waits end at once, cancelled. Before, the first failing close
 * ended the cancel's pass over the sessions (only an {@code OutOfMemoryError} was passed over),
 * and every later cancel, an aborted run's repeated ones too, failed at the same session first:
 * the sessions after it went on waiting with their transports open (a cause that fits what
 * RunOutOfHeapTest's THREADS child showed: hog sessions still in a socket read 30 s after the
 * abort). Here the sessions wait for a line their server never sends, with a read timeout longer
 * than the test waits for the run.
 */
class CancelReachesEverySessionTest {
  private static final int SESSIONS = 4;
  /** The sessions' read timeout; the run is waited for half of it. */
  private static final long WAIT_SECONDS = 30;

  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  void aCloseThatThrowsDuringACancelDoesNotSpareTheOtherSessions(Mode mode) throws Exception {
    List<Socket> peers = new ArrayList<>();
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
         FirstCloseFailsConnector connector = FirstCloseFailsConnector.firstTransportFailingWith(
             () -> new IllegalStateException("close refused"));
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector)
             .address(server.getLocalSocketAddress()).timeout(Timeout.of(WAIT_SECONDS, TimeUnit.SECONDS))
             .closeWait(WAIT_SECONDS, TimeUnit.SECONDS).build()) {
      server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      FutureTask<RunResult<String>> run = new FutureTask<>(() -> runner.run(Silent.class, SESSIONS));
      Thread runThread = new Thread(run, "cancel-reaches-run");
      runThread.setDaemon(true);
      runThread.start();
      // Every session has connected (a session cancelled before its read finds its transport closed).
      for (int i = 0; i < SESSIONS; i++) {
        peers.add(server.accept());
      }
      try {
        runner.cancel();
      } catch (IllegalStateException e) {
        // The old cancel passed the failed close on to its caller.
      }
      RunResult<String> result;
      try {
        // Well under the sessions' read timeout: only the cancel ends them this soon.
        result = run.get(WAIT_SECONDS / 2, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        throw new AssertionError(e.getCause());
      }
      assertEquals(SESSIONS, result.outcomes().size());
      assertEquals(1, connector.failedCloses());
      // Every session cancelled, the one whose close failed too (its read ended by a later close
      // or the runner's interrupt).
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.CANCELLED, outcome.status(), i + ": " + outcome);
      }
    } finally {
      for (Socket peer : peers) {
        peer.close();
      }
    }
  }

  /** Waits for a line its server never sends. */
  public static final class Silent implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws IOException {
      return transport.readLineStrict(64);
    }
  }
}
