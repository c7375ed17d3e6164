package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A Netty event loop that dies of an error (Netty catches it in the loop's thread, logs
 * "Unexpected exception from an event executor" and ends the loop, as the heap's end did in
 * RunOutOfHeapTest's CONTINUATIONS_NETTY child on JDK 25) fails its connector's sessions: a read
 * waiting on a channel that loop served ends with {@link TransportClosedException} naming the
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
    try (EchoServer tcp = EchoServer.tcp();
         NettyConnector connector = new NettyConnector(null, 64 * 1024, 1, "test", strategy)) {
      Transport transport = connector.connect(tcp.address(), Timeout.of(10, TimeUnit.SECONDS));
      dying.set(true);
      // Another connect's registration wakes the loop, whose next turn begins with the strategy,
      // which throws. That connect fails (its channel closed with the rest, or the connector
      // already broken), or, where its handshake was made inside the connect call (loopback), it
      // is finished in the same turn as its registration, before the loop's next: then its
      // transport is failed with the first one.
      Transport second = null;
      try {
        second = connector.connect(tcp.address(), Timeout.of(10, TimeUnit.SECONDS));
      } catch (IOException expected) {
        // The connect failed with the loop.
      }
      for (Transport t : second == null ? new Transport[] {transport} : new Transport[] {transport, second}) {
        TransportClosedException e = assertThrows(TransportClosedException.class, () -> {
          t.readLineStrict(64);
        });
        assertTrue(e.getMessage().contains("Netty event loop weft-netty-test") && e.getMessage().contains(" died"),
            e::toString);
      }
      TransportClosedException refused = assertThrows(TransportClosedException.class,
          () -> connector.connect(tcp.address(), Timeout.of(10, TimeUnit.SECONDS)));
      assertTrue(refused.getMessage().startsWith("connector is broken: Netty event loop weft-netty-test"),
          refused::toString);
    }
  }
}
