package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.EventLoopWakingConnector;
import io.weft.transport.Timeout;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * Resuming where the wake-up runs: every read is woken twice, at once, by two of four event-loop
 * threads while the session may still be unwinding its suspend. A session must never run on two
 * threads at once, every session must complete with its exact echo count, and the resumes must
 * land on the event loops (or, with {@code resumeOnWorkers}, never).
 */
class EventLoopResumeTest {
  private static final int SESSIONS = 300;
  private static final int LINES = 100;

  private static void run(Mode mode, EventLoopWakingConnector connector) throws Exception {
    run(mode, connector, 0);
  }

  private static void run(Mode mode, EventLoopWakingConnector connector, int maxInFlight) throws Exception {
    try (SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector)
        .address(InetSocketAddress.createUnresolved("loops", 1)).timeout(Timeout.NONE).maxInFlight(maxInFlight)
        .instrument(SessionRunnerTest.CLIENT).build()) {
      RunResult<String> result = runner.run(LineTesterTask.class, SESSIONS, LINES);
      assertTrue(result.allSucceeded(), result.failures().toString());
      for (Outcome<String> outcome : result.outcomes()) {
        assertTrue(outcome.value().startsWith(outcome.index() + ":" + LINES + ":"), outcome.value());
      }
    }
    assertEquals(0, connector.overlaps.get(), "a session ran on two threads at once");
    assertEquals((long) SESSIONS * LINES, connector.reads.get(), "reads");
  }

  @Test
  void wakeUpsFromManyEventLoopsResumeThereAndNeverOnTwoThreads() throws Exception {
    try (EventLoopWakingConnector connector = new EventLoopWakingConnector(4)) {
      run(Mode.continuations(2), connector);
      assertTrue(connector.resumedOnLoop.get() > 0, "no session resumed on an event loop");
    }
  }

  @Test
  void resumeOnWorkersKeepsEverySessionOffTheEventLoops() throws Exception {
    try (EventLoopWakingConnector connector = new EventLoopWakingConnector(4)) {
      run(Mode.continuations(2).resumeOnWorkers(), connector, 8);
      assertEquals(0L, connector.resumedOnLoop.get(), "resumed on an event loop");
      assertEquals(0L, connector.connectedOnLoop.get(), "started on an event loop");
    }
  }

  @Test
  void sessionAdmittedAsAnotherEndsOnAnEventLoopStartsThereAndNeverOnTwoThreads() throws Exception {
    try (EventLoopWakingConnector connector = new EventLoopWakingConnector(4)) {
      run(Mode.continuations(2), connector, 8);
      // Only the first 8 start on the workers; every other one is admitted by an end, nearly
      // always on a loop (a session's last read is woken there).
      assertTrue(connector.connectedOnLoop.get() > 0, "no session started on an event loop");
    }
  }
}
