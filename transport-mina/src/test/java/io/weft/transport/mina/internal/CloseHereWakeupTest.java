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
import org.apache.mina.transport.socket.nio.NioSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A session closed by its processor where its reply arrived ({@code NioProcessor.closeHere})
 * does not wake that processor's selector: MINA removes the session later in the same turn of
 * the loop, after the ready sessions are processed and flushed, so the wake-up its close used to
 * make (an eventfd write, a read of it at the next select) bought nothing. The sessions' work is
 * unchanged: each echoes a line over its own connection, closes a second connection made from
 * the processor's loop after its echo, echoes a third line, and ends; every connection is closed.
 * Real loopback TCP, one processor.
 */
class CloseHereWakeupTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final int SESSIONS = 20;

  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
  }

  @Test
  void aSessionClosedWhereItsReplyArrivedDoesNotWakeItsProcessorsSelector() throws Exception {
    List<String> closeWakeups = new CopyOnWriteArrayList<>();
    AtomicInteger closedHere = new AtomicInteger();
    NioProcessor.hooks = new NioProcessor.Hooks() {
      @Override
      public void finishing(NioSession session, ConnectFuture future) {}

      @Override
      public void watching(NioSession session, ConnectFuture future) {}

      @Override
      public void cancelled(NioSession session, ConnectFuture future) {}

      @Override
      public void wakingUp(NioProcessor processor) {
        StackTraceElement[] stack = new Throwable().getStackTrace();
        if (Arrays.stream(stack).anyMatch(e -> e.getMethodName().equals("closeHere"))) {
          closeWakeups.add(Thread.currentThread().getName());
        }
      }

      @Override
      public void closedHere(NioSession session) {
        closedHere.incrementAndGet();
      }
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
    // Each session's second connection at least was closed on the loop, where its echo arrived.
    assertTrue(closedHere.get() >= SESSIONS, "sessions closed on the processor's loop: " + closedHere.get());
    assertEquals(List.of(), closeWakeups, "wake-ups made by closes on the processor's own loop");
  }
}
