package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.testclient.HoldLoopTask;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.transport.socket.nio.NioSession;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connect on the continuation connector made on a thread that is none of its processors (the
 * test's own thread here, as a scheduler's worker starting the first sessions of a run) is handed
 * to a processor and made and finished on its loop: its selector watches the channel (the
 * processor's hook sees it, on the processor's thread) and the session is served by that processor
 * itself, where MINA's connector, its own thread finishing the connect, hands every session to its
 * processor pool. Ends as a connect made anywhere else: refused with the same message, out of time
 * with the same message. A cancel that comes while the connect waits for the loop means it is
 * never made; a processor disposed with connects still handed over fails them.
 *
 * <p>Real loopback TCP, MINA's real processor. A loop is held, where the order matters, by a
 * session that blocks its processor's thread inside its task until the test lets it go.
 */
class ConnectHandedToLoopTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  private static final Timeout TIMEOUT = Timeout.of(60, TimeUnit.SECONDS);

  /** Connects the processors' selectors watched: the thread that saw each, and its session. */
  private final List<String> watchedOn = new CopyOnWriteArrayList<>();
  private final List<NioSession> watched = new CopyOnWriteArrayList<>();
  private final List<String> finishedOn = new CopyOnWriteArrayList<>();
  /** The session each cancel reported (null: a connect not yet started). */
  private final List<NioSession> cancelledSessions = new CopyOnWriteArrayList<>();
  /** Counted down as a processor being disposed is woken by the disposal (MINA marks it first). */
  private final CountDownLatch disposingWoken = new CountDownLatch(1);
  /** Counted down for each connect to {@link #countedTo} handed over to a processor. */
  private volatile CountDownLatch handed = new CountDownLatch(0);
  private volatile SocketAddress countedTo;

  /** How many handed-over connects each turn of a processor's loop took (turns that took none left out). */
  private final List<Integer> turns = new CopyOnWriteArrayList<>();

  private final List<AutoCloseable> closing = new ArrayList<>();
  /**
   * The test's other threads: a thread each (the common pool may have one thread only, and a run
   * that holds it would keep the others from starting).
   */
  private final ExecutorService others = Executors.newCachedThreadPool();

  @AfterEach
  void reset() throws Exception {
    NioProcessor.hooks = null;
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    others.shutdownNow();
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    closing.add(resource);
    return resource;
  }

  private void watch() {
    NioProcessor.hooks = new NioProcessor.Hooks() {
      @Override
      public void watching(NioSession session, ConnectFuture future) {
        watchedOn.add(Thread.currentThread().getName());
        watched.add(session);
      }

      @Override
      public void finishing(NioSession session, ConnectFuture future) {
        finishedOn.add(Thread.currentThread().getName());
      }

      @Override
      public void cancelled(NioSession session, ConnectFuture future) {
        cancelledSessions.add(session);
      }

      @Override
      public void handedOver(NioProcessor processor, SocketAddress remote) {
        if (remote.equals(countedTo)) {
          handed.countDown();
        }
      }

      @Override
      public void startedHandedOver(NioProcessor processor, int n) {
        if (n > 0) {
          turns.add(n);
        }
      }

      @Override
      public void wakingUp(NioProcessor processor) {
        if (processor.isDisposing()) {
          disposingWoken.countDown();
        }
      }
    };
  }

  private SuspendingMinaConnector connector(int processors) {
    return closeLater(SuspendingMinaConnector.builder().processorCount(processors).tcp());
  }

  private static String echo(Transport transport, String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(200);
  }

  @Test
  void aConnectFromAnotherThreadIsMadeAndFinishedOnTheProcessor() throws Exception {
    watch();
    EchoServer server = closeLater(EchoServer.tcp());
    SuspendingMinaConnector connector = connector(1);
    int connects = 6;
    for (int i = 0; i < connects; i++) {
      try (Transport t = connector.connect(server.address(), TIMEOUT)) {
        assertEquals("line " + i, echo(t, "line " + i));
      }
    }
    // Another thread of the caller's, for good measure.
    CompletableFuture.runAsync(() -> {
      try (Transport t = connector.connect(server.address(), TIMEOUT)) {
        assertEquals("other", echo(t, "other"));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }, others).get(60, TimeUnit.SECONDS);
    // Every connect's channel was watched by the processor's selector and finished there, on its
    // thread; MINA's connector would have finished it on its own thread and handed the session
    // to the pool, and this processor's selector would never have seen it.
    assertEquals(connects + 1, watched.size(), "connects watched by the processor: " + watchedOn);
    assertEquals(connects + 1, finishedOn.size(), "connects finished by the processor: " + finishedOn);
    for (String thread : watchedOn) {
      assertTrue(thread.startsWith("NioProcessor-"), "a connect watched on " + thread);
    }
    for (String thread : finishedOn) {
      assertTrue(thread.startsWith("NioProcessor-"), "a connect finished on " + thread);
    }
    // Each session is served by that processor itself, not by MINA's pool.
    for (NioSession s : watched) {
      assertInstanceOf(NioProcessor.class, ((AbstractIoSession) s).getProcessor());
    }
    assertEquals(0, connector.openCount(), "connections left open");
  }

  @Test
  void connectsFromAnotherThreadGoToTheProcessorsInTurn() throws Exception {
    watch();
    EchoServer server = closeLater(EchoServer.tcp());
    SuspendingMinaConnector connector = connector(3);
    List<Transport> open = new ArrayList<>();
    try {
      for (int i = 0; i < 6; i++) {
        Transport t = connector.connect(server.address(), TIMEOUT);
        open.add(t);
        assertEquals("line " + i, echo(t, "line " + i));
      }
    } finally {
      for (Transport t : open) {
        t.close();
      }
    }
    assertEquals(6, watched.size(), "connects watched by a processor: " + watchedOn);
    List<Object> processors = new ArrayList<>();
    for (NioSession s : watched) {
      processors.add(((AbstractIoSession) s).getProcessor());
    }
    assertNotEquals(processors.get(0), processors.get(1));
    assertNotEquals(processors.get(1), processors.get(2));
    assertNotEquals(processors.get(0), processors.get(2));
    for (int i = 3; i < 6; i++) {
      assertSame(processors.get(i - 3), processors.get(i), "connect " + i + " went to " + processors);
    }
  }

  @Test
  void aRefusedConnectFromAnotherThreadSaysWhatItAlwaysSaid() throws Exception {
    watch();
    SuspendingMinaConnector connector = connector(1);
    InetSocketAddress closed = closedPort();
    ConnectException e = assertThrows(ConnectException.class, () -> connector.connect(closed, TIMEOUT).close());
    // docs/errors.md, word for word.
    assertEquals("connect to " + closed + " failed: Connection refused", e.getMessage());
    assertEquals(1, watched.size(), "the refused connect was not watched by the processor: " + watchedOn);
    assertTrue(watchedOn.get(0).startsWith("NioProcessor-"), watchedOn.get(0));
    assertEquals(0, connector.openCount(), "connections left open");
  }

  /**
   * The connect runs out of time while its processor's loop is held, before the loop has looked at
   * it: the cancel that follows means it is never made (no socket opened, nothing reaches the
   * server); a connect handed over after it is made as usual.
   */
  @Test
  void aConnectCancelledBeforeTheLoopStartsItIsNeverMade() throws Exception {
    EchoServer target = closeLater(EchoServer.tcp());
    SuspendingMinaConnector connector = connector(1);
    HeldLoop held = new HeldLoop(connector);
    try {
      TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
          () -> connector.connect(target.address(), Timeout.of(100, TimeUnit.MILLISECONDS)).close());
      assertEquals("connect to " + target.address() + " timed out after 100 ms", e.getMessage());
    } finally {
      held.release.countDown();
    }
    held.assertHeld();
    // Handed over after the cancelled one, so started after the loop came to that one.
    try (Transport t = connector.connect(target.address(), TIMEOUT)) {
      assertEquals("later", echo(t, "later"));
    }
    assertEquals(1, target.sessionsOpened(), "connections the target accepted");
    assertTrue(cancelledSessions.contains(null), "no cancel found its connect not yet started: " + cancelledSessions);
    assertEquals(0, connector.openCount(), "connections left open");
  }

  /**
   * A processor disposed while a connect handed over to it waits for its held loop: the connect
   * fails, never made; one handed over once the processor is disposed fails at once.
   */
  @Test
  void disposingTheProcessorEndsTheConnectsStillHandedOver() throws Exception {
    EchoServer target = closeLater(EchoServer.tcp());
    SuspendingMinaConnector connector = connector(1);
    HeldLoop held = new HeldLoop(connector);
    ConnectFuture handed;
    NioProcessor processor;
    CompletableFuture<Void> disposed;
    try {
      // The session's own connect, made by the worker, was watched by the processor.
      assertEquals(1, watched.size(), "connects watched: " + watchedOn);
      NioSession session = watched.get(0);
      processor = (NioProcessor) ((AbstractIoSession) session).getProcessor();
      NioSocketConnector service = (NioSocketConnector) session.getService();
      handed = processor.connectFromElsewhere(service, target.address(), null);
      // MINA's disposal marks the processor disposing and waits for its loop to end.
      disposed = CompletableFuture.runAsync(processor::dispose, others);
      assertTrue(disposingWoken.await(60, TimeUnit.SECONDS), "the processor's disposal never began");
      assertFalse(handed.isDone(), "the connect ended while the loop was held");
    } finally {
      held.release.countDown();
    }
    disposed.get(60, TimeUnit.SECONDS);
    assertTrue(handed.await(60, TimeUnit.SECONDS), "the connect handed over never ended");
    assertFalse(handed.isConnected());
    assertInstanceOf(ClosedChannelException.class, handed.getException());
    ConnectFuture late = processor.connectFromElsewhere((NioSocketConnector) watched.get(0).getService(),
        target.address(), null);
    assertTrue(late.isDone(), "a connect handed over to a disposed processor did not fail at once");
    assertInstanceOf(ClosedChannelException.class, late.getException());
    held.run.get(60, TimeUnit.SECONDS);
    assertEquals(1, watched.size(), "a connect handed over was made: " + watchedOn);
    assertEquals(0, target.sessionsOpened(), "connections the target accepted");
  }

  /**
   * More connects handed over while the loop is held than one turn of it starts: it starts them
   * over several turns, without waiting for the selector between them, and every one connects.
   */
  @Test
  void aFirstWaveLargerThanATurnIsStartedOverSeveralTurns() throws Exception {
    EchoServer target = closeLater(EchoServer.tcp());
    SuspendingMinaConnector connector = connector(1);
    int sessions = 2 * NioProcessor.CONNECTS_PER_TURN + 100;
    handed = new CountDownLatch(sessions);
    countedTo = target.address();
    HeldLoop held = new HeldLoop(connector);
    CompletableFuture<RunResult<String>> wave;
    try {
      wave = CompletableFuture.supplyAsync(() -> {
        try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
            .address(target.address()).maxInFlight(sessions).timeout(TIMEOUT).instrument(CLIENT).build()) {
          return runner.run(io.weft.transport.mina.testclient.EchoLinesTask.class, sessions, 1);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, others);
      // The run's worker starts every session, each handing its connect over to the held loop.
      assertTrue(handed.await(60, TimeUnit.SECONDS), "connects handed over while the loop was held: "
          + (sessions - handed.getCount()) + " of " + sessions);
    } finally {
      held.release.countDown();
    }
    RunResult<String> result = wave.get(120, TimeUnit.SECONDS);
    for (Outcome<String> o : result.outcomes()) {
      assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
    }
    held.assertHeld();
    assertEquals(sessions + 1, watched.size(), "connects watched by the processor");
    // The holding session's own connect took a turn of 1; the wave, queued behind the held loop,
    // at most a turn's share each turn, so over at least 3 turns.
    assertEquals(sessions + 1, turns.stream().mapToInt(Integer::intValue).sum(), "connects taken: " + turns);
    assertEquals(NioProcessor.CONNECTS_PER_TURN, turns.stream().mapToInt(Integer::intValue).max().getAsInt(),
        "the most connects a turn took: " + turns);
    assertTrue(turns.size() >= 3, "turns that took connects: " + turns);
    assertEquals(0, connector.openCount(), "connections left open");
  }

  /**
   * A run of one session that holds its connector's processor's loop (see {@link HoldLoopTask}),
   * made with the hooks set ({@link #watch}) and its session already holding the loop; the test
   * counts {@link #release} down.
   */
  private final class HeldLoop {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CompletableFuture<RunResult<String>> run;

    HeldLoop(SuspendingMinaConnector connector) throws Exception {
      watch();
      EchoServer own = closeLater(EchoServer.tcp());
      run = CompletableFuture.supplyAsync(() -> {
        try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
            .address(own.address()).maxInFlight(1).timeout(TIMEOUT).instrument(CLIENT).build()) {
          return runner.run(HoldLoopTask.class, 1, entered, release);
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, others);
      // Counted down only by a session that holds the loop.
      assertTrue(entered.await(60, TimeUnit.SECONDS), () -> "the session never held the loop: "
          + (run.isDone() ? run.join().outcomes().get(0) : "not ended"));
    }

    /** The session held the loop until released, then echoed once more. */
    void assertHeld() throws Exception {
      Outcome<String> o = run.get(60, TimeUnit.SECONDS).outcomes().get(0);
      assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "the holding session: " + o.failure());
      assertEquals("held, then after 0", o.value());
    }
  }

  private static InetSocketAddress closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
    }
  }
}
