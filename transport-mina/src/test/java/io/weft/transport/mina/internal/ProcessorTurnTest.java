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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.transport.socket.nio.NioSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a MINA processor's turn of its loop does without, for sessions served on it: the
 * selector's selected-key set (see {@code NioProcessor.select}), and a wake-up of its own
 * selector when it closes a session where its reply arrived (see {@code NioProcessor.wakeup}).
 * The sessions' work is unchanged: each echoes a line over its own connection, connects a second
 * time from the processor's loop, echoes and closes there, echoes a third line and ends; every
 * connection is closed. Observed through the processor's test hooks. Real loopback TCP, one
 * processor.
 */
class ProcessorTurnTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 20;

  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
  }

  /**
   * While the processor works on a ready session, on its own thread, the selector's selected-key
   * set is empty: looked at where it finishes a connect that its own selector watched. Before,
   * MINA's select filled that set and its loop emptied it key by key.
   */
  @Test
  void theProcessorWorksOnReadySessionsWithTheSelectorsSelectedKeySetEmpty() throws Exception {
    List<Integer> held = new CopyOnWriteArrayList<>();
    runSessions(new Observer() {
      @Override
      public void finishing(NioSession session, ConnectFuture future) {
        held.add(((NioProcessor) ((AbstractIoSession) session).getProcessor()).selectedKeysHeld());
      }
    });
    // Every second connect was made on the loop, and finished there by the processor (so were
    // the sessions' own connects that the runner started on the loop as others ended).
    assertTrue(held.size() >= SESSIONS, "connects the processor finished: " + held);
    assertTrue(held.stream().allMatch(n -> n == 0), "keys in the selector's selected-key set: " + held);
  }

  /**
   * A session closed by its processor where its reply arrived does not wake that processor's
   * selector: MINA removes the session later in the same turn, after the ready sessions are
   * processed and flushed, so the wake-up its close used to make (an eventfd write, and a read of
   * it at the next select) bought nothing.
   */
  @Test
  void aSessionClosedWhereItsReplyArrivedDoesNotWakeItsProcessorsSelector() throws Exception {
    List<String> closeWakeups = new CopyOnWriteArrayList<>();
    AtomicInteger closedHere = new AtomicInteger();
    runSessions(new Observer() {
      @Override
      public void wakingUp(NioProcessor processor) {
        if (Arrays.stream(new Throwable().getStackTrace()).anyMatch(e -> e.getMethodName().equals("closeHere"))) {
          closeWakeups.add(Thread.currentThread().getName());
        }
      }

      @Override
      public void closedHere(NioSession session) {
        closedHere.incrementAndGet();
      }
    });
    // Each session's second connection at least was closed on the loop, where its echo arrived.
    assertTrue(closedHere.get() >= SESSIONS, "sessions closed on the processor's loop: " + closedHere.get());
    assertEquals(List.of(), closeWakeups, "wake-ups made by closes on the processor's own loop");
  }

  /** The hooks a test overrides; the connect-cancel ones do nothing here. */
  private abstract static class Observer implements NioProcessor.Hooks {
    @Override
    public void finishing(NioSession session, ConnectFuture future) {}

    @Override
    public void watching(NioSession session, ConnectFuture future) {}

    @Override
    public void cancelled(NioSession session, ConnectFuture future) {}
  }

  /** Runs the sessions with {@code hooks} installed and checks that each did all its work. */
  private static void runSessions(NioProcessor.Hooks hooks) throws Exception {
    NioProcessor.hooks = hooks;
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
  }
}
