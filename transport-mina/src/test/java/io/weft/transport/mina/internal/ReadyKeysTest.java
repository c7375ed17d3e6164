package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.testclient.ConnectFromLoopTask;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.transport.socket.nio.NioSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A MINA processor hands the sessions its selector found ready to MINA's loop without the
 * selector's selected-key set (see {@code NioProcessor.select}): while the processor works on a
 * ready session, on its own thread, that set is empty. Before, MINA's select filled it and its
 * loop emptied it key by key. Looked at where the processor finishes a connect that its own
 * selector watched (its test hook), with the sessions' work still right: each session's echo over
 * its own connection, a second connection made from the processor's loop, and a third echo on its
 * own. Real loopback TCP, one processor.
 */
class ReadyKeysTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 20;

  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
  }

  @Test
  void theProcessorWorksOnReadySessionsWithTheSelectorsSelectedKeySetEmpty() throws Exception {
    List<Integer> held = new CopyOnWriteArrayList<>();
    NioProcessor.hooks = new NioProcessor.Hooks() {
      @Override
      public void finishing(NioSession session, ConnectFuture future) {
        held.add(((NioProcessor) ((AbstractIoSession) session).getProcessor()).selectedKeysHeld());
      }

      @Override
      public void watching(NioSession session, ConnectFuture future) {}

      @Override
      public void cancelled(NioSession session, ConnectFuture future) {}
    };
    try (EchoServer echo = EchoServer.tcp();
        EchoServer second = EchoServer.tcp();
        SuspendingMinaConnector connector = SuspendingMinaConnector.builder().processorCount(1).tcp();
        SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
            .address(echo.address()).maxInFlight(4).timeout(Timeout.of(60, TimeUnit.SECONDS)).instrument(CLIENT)
            .build()) {
      RunResult<String> result = runner.run(ConnectFromLoopTask.class, SESSIONS, connector, second.address(), 30_000L, true);
      for (Outcome<String> o : result.outcomes()) {
        assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        int i = o.index();
        assertEquals("loop connected second " + i + ", then third " + i, o.value());
      }
      assertEquals(0, connector.openCount(), "transports left open");
    }
    // Every second connect was made on the loop, and finished there by the processor (so were
    // the sessions' own connects that the runner started on the loop as others ended).
    assertTrue(held.size() >= SESSIONS, "connects the processor finished: " + held);
    assertTrue(held.stream().allMatch(n -> n == 0), "keys in the selector's selected-key set: " + held);
  }
}
