package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.HeapExhaustion;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * What a session's frame does when it comes late: its thread started (or its pacing wait ended)
 * after the session was cancelled, or after its run gave up on it and returned. It does not
 * connect (before, it connected and ran its task during whatever ran next, the connection closed
 * only once open); and a heap error it meets after its run left it behind is not reported, so it
 * aborts no run under way then (before, it aborted them all: the next run of the runner, a test's
 * after-run).
 */
class SessionFrameLateTest {
  private static final SessionCancelledException MADE_AHEAD = new SessionCancelledException("made ahead");

  /** Real loopback connections, counted. */
  private static final class CountingConnector implements Connector {
    final SocketConnector sockets = new SocketConnector();
    final AtomicInteger connects = new AtomicInteger();

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      connects.incrementAndGet();
      return sockets.connect(remote, timeout);
    }

    @Override
    public void close() {
      sockets.close();
    }
  }

  /** Answers "ran". */
  public static final class Ran implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) {
      return "ran";
    }
  }

  @Test
  void aSessionCancelledBeforeItsFrameCameToTheConnectDoesNotConnect() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(3, connector, tcp.address(), Timeout.NONE, new Ran());
      c.cancel();
      new SessionFrame(c).run();
      assertEquals(0, connector.connects.get(), "connected after its cancel");
      assertTrue(c.isCancelled());
      SessionCancelledException why = assertInstanceOf(SessionCancelledException.class, c.failure());
      assertEquals("session 3 cancelled before it connected", why.getMessage());
    }
  }

  @Test
  void aSessionItsRunLeftBehindBeforeItsFrameCameToTheConnectDoesNotConnectAndKeepsItsOutcome()
      throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new Ran());
      // Handed to its thread (THREADS marks it so as it starts the thread), then given up on.
      c.started();
      c.leftBehind("left behind: test", MADE_AHEAD);
      Throwable outcome = c.failure();
      new SessionFrame(c).run();
      assertEquals(0, connector.connects.get(), "connected after its run left it behind");
      assertSame(outcome, c.failure());
      assertEquals("left behind: test", outcome.getMessage());
    }
  }

  /** Waits to be let go, then meets the heap's end. */
  public static final class LateHeapEnd implements SessionTask<String> {
    static volatile CountDownLatch inTask;
    static volatile CountDownLatch letGo;

    @Override
    public String run(Transport transport, int index) throws IOException {
      inTask.countDown();
      try {
        letGo.await();
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      throw new OutOfMemoryError("Java heap space");
    }
  }

  @Test
  // A watchdog only.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aHeapErrorASessionMeetsAfterItsRunLeftItBehindAbortsNoRunUnderWayThen() throws Exception {
    LateHeapEnd.inTask = new CountDownLatch(1);
    LateHeapEnd.letGo = new CountDownLatch(1);
    try (EchoServer tcp = EchoServer.tcp(); CountingConnector connector = new CountingConnector()) {
      SessionContext c = new SessionContext(0, connector, tcp.address(), Timeout.NONE, new LateHeapEnd());
      Thread session = new Thread(new SessionFrame(c), "late-session");
      session.start();
      LateHeapEnd.inTask.await();
      // Its run gave up on it and returned; a later run is under way.
      c.leftBehind("left behind: test", MADE_AHEAD);
      List<String> told = new CopyOnWriteArrayList<>();
      try (HeapExhaustion.Watch later = HeapExhaustion.watch(told::add)) {
        LateHeapEnd.letGo.countDown();
        session.join();
        assertEquals(List.of(), told, "a session left behind aborted a later run");
      }
      assertEquals("left behind: test", c.failure().getMessage());
    }
  }
}
