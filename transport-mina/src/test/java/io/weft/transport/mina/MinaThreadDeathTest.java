package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.CloseBeforeProcessorDiesTask;
import io.weft.transport.TransportClosedException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.junit.jupiter.api.Test;

/**
 * A thread a connector owns that dies (an OutOfMemoryError on an I/O processor, here thrown by a
 * filter on one session, which MINA rethrows after reporting it) fails every session it served,
 * and the connector refuses new connects: no wait outlives it, even with no timeout set.
 */
class MinaThreadDeathTest {

  @Test
  void anIoThreadThatDiesFailsEverySessionOnItAndTheConnectorRefusesNewOnes() throws Exception {
    try (MinaConnector connector = MinaConnector.builder().processorCount(1).tcp();
        ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      SocketAddress address = server.getLocalSocketAddress();
      MinaTransport doomed = connector.connect(address, Timeout.NONE);
      Socket doomedPeer = server.accept();
      MinaTransport bystander = connector.connect(address, Timeout.NONE);
      Socket bystanderPeer = server.accept();
      CompletableFuture<Throwable> pending = CompletableFuture.supplyAsync(() -> {
        try {
          bystander.readLineStrict(100);
          return null;
        } catch (Throwable e) {
          return e;
        }
      });
      MinaTransportBehaviourTest.awaitUntil(bystander.state()::isReaderWaiting);
      // The dead processor never closes its sessions' channels, so their close futures never
      // complete: the connector reports them closed itself, or a runner would wait for ever.
      CountDownLatch reportedClosed = new CountDownLatch(2);
      doomed.whenClosed(reportedClosed::countDown);
      bystander.whenClosed(reportedClosed::countDown);

      doomed.state().session().getFilterChain().addFirst("fault", new IoFilterAdapter() {
        @Override
        public void messageReceived(NextFilter next, IoSession session, Object message) {
          throw new OutOfMemoryError("injected: an allocation on the I/O thread failed");
        }
      });
      doomedPeer.getOutputStream().write("x\n".getBytes(UTF_8));

      Throwable ended = pending.get(20, TimeUnit.SECONDS);
      assertTrue(ended instanceof TransportClosedException, String.valueOf(ended));
      assertTrue(ended.getMessage().contains("died: java.lang.OutOfMemoryError: injected"), ended.getMessage());
      assertFalse(bystander.isOpen());
      assertTrue(reportedClosed.await(20, TimeUnit.SECONDS), "closes reported: " + (2 - reportedClosed.getCount()));
      assertTrue(connector.isBroken());
      TransportClosedException refused = assertThrows(TransportClosedException.class,
          () -> connector.connect(address, Timeout.NONE));
      assertTrue(refused.getMessage().startsWith("connector is broken: MINA thread"), refused.getMessage());
      doomedPeer.close();
      bystanderPeer.close();
    }
  }

  /**
   * A transport closed off the processor is closed by MINA only in the processor's next turn;
   * a processor that dies before that turn (of an error that aborts nothing, here a
   * StackOverflowError) never closes it, and the connector must report that close itself, or
   * the session would hold its place among maxInFlight, and SYNC's run would wait, for ever.
   */
  @Test
  void aTransportClosedJustBeforeItsProcessorDiesIsReportedClosedAndTheRunReturns() throws Exception {
    try (MinaConnector connector = MinaConnector.builder().processorCount(1).tcp();
        ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      SocketAddress address = server.getLocalSocketAddress();
      MinaTransport doomed = connector.connect(address, Timeout.NONE);
      Socket doomedPeer = server.accept();
      CountDownLatch connected = new CountDownLatch(1);
      CountDownLatch processorHeld = new CountDownLatch(1);
      CountDownLatch closed = new CountDownLatch(1);
      // The dying processor's closeAll may still be closing this one when the run returns (the
      // run waits only for its own session's report): its report says it is untracked.
      CountDownLatch doomedReported = new CountDownLatch(1);
      doomed.whenClosed(doomedReported::countDown);
      doomed.state().session().getFilterChain().addFirst("fault", new IoFilterAdapter() {
        @Override
        public void messageReceived(NextFilter next, IoSession session, Object message) throws Exception {
          processorHeld.countDown();
          closed.await(60, TimeUnit.SECONDS);
          throw new StackOverflowError("injected: the processor dies before its next turn");
        }
      });
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.SYNC).connector(connector)
          .allowBlockingConnector(true).address(address).connectPacing(ConnectPacing.NONE)
          .maxInFlight(1).timeout(Timeout.NONE).build()) {
        CompletableFuture<RunResult<String>> run = CompletableFuture.supplyAsync(() -> {
          try {
            return runner.run(CloseBeforeProcessorDiesTask.class, 2, connected, processorHeld, closed);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        });
        Socket sessionPeer = server.accept();
        assertTrue(connected.await(20, TimeUnit.SECONDS), "the first session connected");
        // The processor takes this byte in its turn and stays in the filter until the session
        // has closed its transport (a close MINA defers to the processor's next turn).
        doomedPeer.getOutputStream().write("x\n".getBytes(UTF_8));

        RunResult<String> result = run.get(60, TimeUnit.SECONDS);
        Outcome<String> first = result.outcomes().get(0);
        assertEquals(Outcome.Status.SUCCEEDED, first.status(), () -> String.valueOf(first.failure()));
        // The second session's place was freed: it ran, and was refused by the broken connector.
        Outcome<String> second = result.outcomes().get(1);
        assertTrue(second.failure() instanceof TransportClosedException, String.valueOf(second.failure()));
        assertTrue(connector.isBroken());
        assertTrue(doomedReported.await(20, TimeUnit.SECONDS), "the other transport on the dead processor reported closed");
        assertEquals(0, connector.openCount());
        sessionPeer.close();
      }
      doomedPeer.close();
    }
  }
}
