package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.EchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * THREADS and VIRTUAL_THREADS run at most {@code maxInFlight} sessions at once, and every session
 * of the run: a session's end gives its place to the next one (the run's thread, parked, is woken
 * by the end and takes the permit). Over loopback TCP, against an echo server; the sessions meet
 * two by two, so that a limit of two is really used, and one session too many at once would be
 * seen.
 */
class InFlightLimitTest {
  private static final int SESSIONS = 12;
  private static final int LIMIT = 2;
  private static final AtomicInteger RUNNING = new AtomicInteger();
  private static final AtomicInteger MOST = new AtomicInteger();
  private static volatile CyclicBarrier pairs;

  @BeforeEach
  void reset() {
    RUNNING.set(0);
    MOST.set(0);
    pairs = new CyclicBarrier(LIMIT);
  }

  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  void atMostMaxInFlightSessionsRunAtOnceAndEveryOneRuns(Mode mode) throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector sockets = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(sockets).address(tcp.address())
             .timeout(Timeout.of(30, TimeUnit.SECONDS)).maxInFlight(LIMIT).build()) {
      RunResult<String> result = runner.run(Paired.class, SESSIONS);
      assertTrue(result.allSucceeded(), result.failures().toString());
      for (int i = 0; i < SESSIONS; i++) {
        assertEquals("session " + i, result.outcome(i).value());
      }
      assertEquals(LIMIT, MOST.get());
      assertEquals(SESSIONS, tcp.sessionsOpened());
    }
  }

  /** Waits for a second session to be under way too, then exchanges one line. */
  public static final class Paired implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws IOException {
      MOST.accumulateAndGet(RUNNING.incrementAndGet(), Math::max);
      try {
        pairs.await();
        transport.writeLine("session " + index);
        transport.flush();
        return transport.readLineStrict(64);
      } catch (InterruptedException | BrokenBarrierException e) {
        throw new IOException("session " + index + " did not meet a second one", e);
      } finally {
        RUNNING.decrementAndGet();
      }
    }
  }
}
