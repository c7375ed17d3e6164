package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.netty.testclient.GuardedEchoTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Continuations over {@link SuspendingNettyConnector} against a real echo server on loopback
 * TCP: a continuation never runs on two threads at once (not with two event loops and two
 * workers either), and a thousand sessions at once all complete, most of their reads returning
 * on the event loop. Where a session resumes, what a flush there promises and that the blocking
 * connectors refuse an event loop are checked beside MINA's, in transport-mina's
 * {@code IoThreadResumeTest}.
 */
class EventLoopResumeTest {
  private static final String CLIENT = "io.weft.transport.netty.testclient";

  private EchoServer server;

  @BeforeEach
  void start() throws Exception {
    server = EchoServer.tcp();
    GuardedEchoTask.RUNNING.clear();
    GuardedEchoTask.OVERLAPS.set(0);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private RunResult<String> run(SuspendingNettyConnector connector, Mode mode, int sessions, int lines)
      throws InterruptedException {
    try (connector;
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(server.address())
             .timeout(Timeout.of(30, TimeUnit.SECONDS)).maxInFlight(sessions).instrument(CLIENT).build()) {
      RunResult<String> result = runner.run(GuardedEchoTask.class, sessions, lines);
      assertTrue(result.allSucceeded(), () -> result.failures().get(0).toString());
      assertEquals(0, connector.openCount(), "transports left open after the run");
      return result;
    }
  }

  private static int readsOnLoop(RunResult<String> result, int lines) {
    int total = 0;
    for (Outcome<String> o : result.outcomes()) {
      String[] parts = o.value().split(":");
      assertEquals(String.valueOf(lines), parts[0], o.value());
      total += Integer.parseInt(parts[1]);
    }
    return total;
  }

  @Test
  void aContinuationNeverRunsOnTwoThreadsWithTwoEventLoopsAndTwoWorkers() throws Exception {
    SuspendingNettyConnector connector = SuspendingNettyConnector.builder().eventLoopThreads(2).tcp();
    RunResult<String> result = run(connector, Mode.continuations(2), 200, 20);
    assertEquals(0, GuardedEchoTask.OVERLAPS.get(), "sessions found running on another thread");
    assertEquals(200, result.outcomes().size());
    assertTrue(GuardedEchoTask.RUNNING.isEmpty(), "sessions still marked running: " + GuardedEchoTask.RUNNING);
  }

  @Test
  void aThousandSessionsAtOnceAllComplete() throws Exception {
    RunResult<String> result = run(SuspendingNettyConnector.tcp(), Mode.continuations(1), 1_000, 5);
    assertEquals(1_000, result.outcomes().size());
    assertEquals(5_000L, server.linesEchoed());
    assertTrue(readsOnLoop(result, 5) > 0, "no read returned on an event loop");
  }
}
