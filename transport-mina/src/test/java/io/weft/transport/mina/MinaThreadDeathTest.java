package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.Timeout;
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
}
