package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.testclient.ConnectFromLoopTask;
import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.spi.AbstractSelectableChannel;
import java.nio.channels.spi.AbstractSelector;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Set;
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
 * selector's selected-key set where the selector allows (see {@code NioProcessor.select}), and a
 * wake-up of its own selector when it closes a session where its reply arrived (see
 * {@code NioProcessor.wakeup}).
 * The sessions' work is unchanged: each echoes a line over its own connection, connects a second
 * time from the processor's loop, echoes and closes there, echoes a third line and ends; every
 * connection is closed. Observed through the processor's test hooks. Real loopback TCP, one
 * processor.
 */
class ProcessorTurnTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  static final int SESSIONS = 20;

  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
  }

  /**
   * While the processor works on a ready session, on its own thread, the selector's selected-key
   * set is empty, the processor's own list in use (the JDK's default selector on Linux is epoll's):
   * looked at where it finishes a connect that its own selector watched. Before, MINA's select
   * filled that set and its loop emptied it key by key.
   */
  @Test
  void theProcessorWorksOnReadySessionsWithTheSelectorsSelectedKeySetEmpty() throws Exception {
    List<String> seen = new CopyOnWriteArrayList<>();
    runSessions(new Observer() {
      @Override
      public void finishing(NioSession session, ConnectFuture future) {
        NioProcessor processor = (NioProcessor) ((AbstractIoSession) session).getProcessor();
        seen.add(processor.listing() + "/" + processor.selectedKeysHeld());
      }
    });
    // Every second connect was made on the loop, and finished there by the processor (so were
    // the sessions' own connects that the runner started on the loop as others ended).
    assertTrue(seen.size() >= SESSIONS, "connects the processor finished: " + seen);
    assertTrue(seen.stream().allMatch("true/0"::equals), "list in use / keys in the selector's set: " + seen);
  }

  /**
   * The list is used only with selectors that report each ready key at most once per select with
   * all its ready operations: the JDK's epoll and poll selectors. Any other (the kqueue selector,
   * which reports a key once per ready operation) keeps MINA's selected-key set.
   */
  @Test
  void onlyTheEpollAndPollSelectorsReportEachReadyKeyOnce() throws IOException {
    try (Selector platform = Selector.open()) {
      assertEquals("sun.nio.ch.EPollSelectorImpl", platform.getClass().getName(), "this test expects Linux's default");
      assertTrue(NioProcessor.reportsOncePerKey(platform));
    }
    try (Selector other = new OtherSelector()) {
      assertFalse(NioProcessor.reportsOncePerKey(other));
    }
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
      /** The processor's thread while it is inside MINA's close of a session it closes here. */
      private volatile Thread closing;

      @Override
      public void wakingUp(NioProcessor processor) {
        if (Thread.currentThread() == closing) {
          closeWakeups.add(Thread.currentThread().getName());
        }
      }

      @Override
      public void closingNow(NioSession session, boolean done) {
        if (done) {
          closing = null;
          closedHere.incrementAndGet();
        } else {
          closing = Thread.currentThread();
        }
      }
    });
    // Each session's second connection at least was closed on the loop, where its echo arrived.
    assertTrue(closedHere.get() >= SESSIONS, "sessions closed on the processor's loop: " + closedHere.get());
    assertEquals(List.of(), closeWakeups, "wake-ups made by closes on the processor's own loop");
  }

  /** A selector of no JDK kind: only its class matters here. */
  private static final class OtherSelector extends AbstractSelector {
    OtherSelector() {
      super(SelectorProvider.provider());
    }

    @Override
    protected void implCloseSelector() {}

    @Override
    protected SelectionKey register(AbstractSelectableChannel ch, int ops, Object att) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Set<SelectionKey> keys() {
      return Set.of();
    }

    @Override
    public Set<SelectionKey> selectedKeys() {
      return Set.of();
    }

    @Override
    public int selectNow() {
      return 0;
    }

    @Override
    public int select(long timeout) {
      return 0;
    }

    @Override
    public int select() {
      return 0;
    }

    @Override
    public Selector wakeup() {
      return this;
    }
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
  static void runSessions(NioProcessor.Hooks hooks) throws Exception {
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
