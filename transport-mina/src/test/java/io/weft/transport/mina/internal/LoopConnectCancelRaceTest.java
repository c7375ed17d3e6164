package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.testclient.ConnectFromLoopTask;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.transport.socket.nio.NioSession;
import org.apache.mina.util.ExceptionMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connect made on a MINA processor's loop whose wait runs out just as that processor finishes
 * it (the selector saw the connect end; the session is not yet live): the cancel, on another
 * thread, must not close the channel under the processor. Before, it did: the processor's
 * {@code interestOps} met a cancelled key ({@code CancelledKeyException} out of its loop, which
 * MINA reports and then sleeps a second for, every session of the processor waiting), or the
 * session was made live with a cancelled key and never ended.
 *
 * <p>The order is made, not hoped for: the processor's test hook, at the point where it has
 * taken the session and not yet made it live, holds the processor until the connect's own wait
 * has run out and its cancel has done all it does. Real loopback TCP; one processor.
 */
class LoopConnectCancelRaceTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";
  /** The second connect's wait: long enough that the processor sees a loopback connect end first. */
  private static final long CONNECT_MILLIS = 2_000;

  private final ExceptionMonitor previousMonitor = ExceptionMonitor.getInstance();

  @AfterEach
  void reset() {
    NioProcessor.hooks = null;
    ExceptionMonitor.setInstance(previousMonitor);
  }

  @Test
  void aConnectCancelledAsTheProcessorFinishesItEndsItsSessionAndTheProcessorGoesOn() throws Exception {
    List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    ExceptionMonitor.setInstance(new ExceptionMonitor() {
      @Override
      public void exceptionCaught(Throwable cause) {
        unexpected.add(cause);
        previousMonitor.exceptionCaught(cause);
      }
    });
    AtomicReference<NioSession> held = new AtomicReference<>();
    // The second connect's port: the session's own connect, handed to the processor by the
    // worker that starts it, is finished by the same processor, and is not the one held.
    AtomicInteger secondPort = new AtomicInteger(-1);
    CountDownLatch cancelDone = new CountDownLatch(1);
    List<String> hookFailures = new CopyOnWriteArrayList<>();
    NioProcessor.hooks = new NioProcessor.Hooks() {
      @Override
      public void watching(NioSession session, ConnectFuture future) {}

      @Override
      public void finishing(NioSession session, ConnectFuture future) {
        InetSocketAddress to = (InetSocketAddress) session.getRemoteAddress();
        if (to == null || to.getPort() != secondPort.get() || !held.compareAndSet(null, session)) {
          return;
        }
        // The processor's thread, the connect ended and the session not yet live: held here
        // until the connect's wait has run out (the wait timer wakes the session on a worker)
        // and its cancel has returned.
        try {
          if (!cancelDone.await(60, TimeUnit.SECONDS)) {
            hookFailures.add("the connect's wait never ran out while the processor held it");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }

      @Override
      public void cancelled(NioSession session, ConnectFuture future) {
        if (session == held.get()) {
          cancelDone.countDown();
        }
      }
    };
    try (EchoServer echo = EchoServer.tcp();
        ServerSocket second = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        SuspendingMinaConnector connector = SuspendingMinaConnector.builder().processorCount(1).tcp()) {
      InetSocketAddress secondAddress = new InetSocketAddress(InetAddress.getLoopbackAddress(), second.getLocalPort());
      secondPort.set(second.getLocalPort());
      RunResult<String> result;
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
          .address(echo.address()).maxInFlight(1).timeout(Timeout.of(60, TimeUnit.SECONDS)).instrument(CLIENT)
          .build()) {
        result = runner.run(ConnectFromLoopTask.class, 1, connector, secondAddress, CONNECT_MILLIS, true);
      }
      Outcome<String> o = result.outcomes().get(0);
      assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "the session: " + o.failure());
      assertNotNull(held.get(), "the processor never finished the second connect before its wait ran out: " + o.value());
      assertEquals(List.of(), hookFailures);
      // The connect's caller was told what any connect that runs out of time says
      // (docs/errors.md), and the session's own transport, on the same processor, still served.
      String v = o.value();
      assertTrue(v.startsWith("loop TransportTimeoutException: connect to " + secondAddress + " timed out")
          && v.endsWith(", then third 0"), v);
      // Nothing escaped the processor's loop (MINA reports such an exception and sleeps 1 s).
      assertEquals(List.of(), unexpected, "exceptions out of the processor's loop");
      // The session the processor had taken ended as any session does: its end reported (its
      // close future done), its socket closed (the peer reads end of stream).
      assertTrue(held.get().getCloseFuture().await(30, TimeUnit.SECONDS),
          "the cancelled connect's session never ended (its close future never completed)");
      second.setSoTimeout(30_000);
      try (Socket accepted = second.accept()) {
        accepted.setSoTimeout(30_000);
        assertEquals(-1, accepted.getInputStream().read(), "the cancelled connect's socket still open");
      }
      assertEquals(0, connector.openCount(), "transports left open");
    }
  }
}
