package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.weft.testsupport.EchoServer;
import io.weft.testsupport.FullBacklog;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A Netty event loop that dies of an error (Netty catches it in the loop's thread, logs
 * "Unexpected exception from an event executor" and ends the loop, as the heap's end did in
 * RunOutOfHeapTest's CONTINUATIONS_NETTY child on JDK 25) fails its connector's sessions: a read
 * waiting on a channel that loop served, and a connect under way on it (its SYN dropped by a full
 * accept queue, so it cannot complete first), end with {@link TransportClosedException} naming the
 * loop, and the connector refuses new connects. The error is thrown where the heap's end can
 * strike and Netty does not catch it: inside the loop itself, from its select strategy. Before,
 * the read waited for ever (its channel's loop would never deliver a byte or a close): the
 * test's timeout fails it.
 */
class NettyLoopDiedTest {
  @Test
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aDeadEventLoopFailsTheConnectorsSessionsAndTheConnectorRefusesNewConnects() throws Exception {
    AtomicBoolean dying = new AtomicBoolean();
    SelectStrategy normal = DefaultSelectStrategyFactory.INSTANCE.newSelectStrategy();
    SelectStrategyFactory strategy = () -> (selectNow, hasTasks) -> {
      if (dying.get()) {
        throw new Error("the test's error inside the event loop");
      }
      return normal.calculateStrategy(selectNow, hasTasks);
    };
    assumeTrue(FullBacklog.canCheck(), FullBacklog.CANNOT_CHECK);
    try (EchoServer tcp = EchoServer.tcp(); FullBacklog full = new FullBacklog();
         NettyConnector connector = new NettyConnector(null, 64 * 1024, 1, "test", strategy)) {
      Transport transport = connector.connect(tcp.address(), Timeout.of(10, TimeUnit.SECONDS));
      // A connect under way on the loop when it dies: to a listener whose accept queue is full,
      // whose kernel drops its SYN, so it cannot complete; seen in SYN_SENT before the death.
      CompletableFuture<Transport> inFlight = CompletableFuture.supplyAsync(() -> {
        try {
          return connector.connect(full.address(), Timeout.of(10, TimeUnit.SECONDS));
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (full.synSent() == 0) {
        assertTrue(System.nanoTime() - end < 0, "the connect to the full listener never reached SYN_SENT");
        assertFalse(inFlight.isDone(), () -> "the connect to the full listener ended: " + inFlight);
        Thread.sleep(1);
      }
      dying.set(true);
      // A task wakes the loop, whose next turn begins with the strategy, which throws. (A connect
      // to wake it would race the death: it may complete first; one that the dying loop refuses
      // fails as the death does, NettyLoopRefusalTest.)
      ((NettyTransport) transport).state().channel().eventLoop().execute(() -> { });
      // The connect under way ends with the loop, not at its timeout.
      ExecutionException failed = assertThrows(ExecutionException.class, () -> inFlight.get(30, TimeUnit.SECONDS));
      TransportClosedException e = assertInstanceOf(TransportClosedException.class, failed.getCause(),
          () -> "the connect under way ended with " + failed.getCause());
      assertTrue(e.getMessage().contains("Netty event loop weft-netty-test") && e.getMessage().contains(" died"),
          e::toString);
      // The connection made before the death fails with the loop.
      e = assertThrows(TransportClosedException.class, () -> transport.readLineStrict(64));
      assertTrue(e.getMessage().contains("Netty event loop weft-netty-test") && e.getMessage().contains(" died"),
          e::toString);
      TransportClosedException refused = assertThrows(TransportClosedException.class,
          () -> connector.connect(tcp.address(), Timeout.of(10, TimeUnit.SECONDS)));
      assertTrue(refused.getMessage().startsWith("connector is broken: Netty event loop weft-netty-test"),
          refused::toString);
    }
  }
}
