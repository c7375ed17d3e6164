package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.EchoLinesTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection per query under {@code continuations(1)}: many short sessions (connect, one
 * exchange, close), at most N in flight, against a loopback server that counts the client's
 * open connections as each new one arrives. Every exchange completes, and the server never sees
 * more than N connections open: a session resumed on its I/O thread by its reply closes its
 * socket before the session that takes its place connects.
 *
 * <p>Over MINA this did not hold: {@code closeNow()} closes the socket only at the end of the
 * processor's turn, after the runner had started the next session on the same thread and MINA
 * had sent its SYN, so the server saw up to a turn's worth of sessions more than N. Against
 * redis-server with {@code maxclients} just above that, sessions failed with "ERR max number of
 * clients reached" (the peers benchmark, connect per query at N = 100: 27 of 50,000).
 *
 * <p>Load-independent: the count is of closes that reached the server before the new connection
 * did, and with the close inside the session's end both happen in that order on one thread.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(SuspendingLoops.class)
class ConnectPerQueryTest {
  @Parameter
  SuspendingLoops loops;

  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int IN_FLIGHT = 50;
  private static final int SESSIONS = 2_000;
  private static final int RUNS = 3;

  private Connector connector;
  private OpenConnectionsServer server;

  @BeforeEach
  void start() throws Exception {
    connector = loops.connectors.get();
    server = new OpenConnectionsServer();
  }

  @AfterEach
  void stop() throws Exception {
    try {
      connector.close();
    } finally {
      server.close();
    }
  }

  @Test
  void everyExchangeCompletesAndTheServerNeverSeesMoreThanNConnectionsOpen() throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
        .address(server.address()).connectPacing(ConnectPacing.NONE).maxInFlight(IN_FLIGHT)
        .timeout(Timeout.of(60, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
      for (int run = 1; run <= RUNS; run++) {
        server.resetPeak();
        RunResult<String> result = runner.run(EchoLinesTask.class, SESSIONS, 1);
        for (Outcome<String> o : result.outcomes()) {
          assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        }
        assertNull(server.failure(), "the server failed");
        assertEquals((long) run * SESSIONS, server.linesEchoed(), "exchanges the server answered");
        assertEquals(run * SESSIONS, server.accepted(), "connections the server accepted");
        int peak = server.peakOpen();
        assertTrue(peak <= IN_FLIGHT, "run " + run + ": the server saw " + peak
            + " connections open at once, from a runner with at most " + IN_FLIGHT + " sessions in flight");
      }
    }
  }
}
