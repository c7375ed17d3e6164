package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoop;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.concurrent.FastThreadLocal;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Work that a dying Netty event loop refuses ({@code RejectedExecutionException: event executor
 * terminated}) fails as the loop's death does (docs/errors.md): {@link TransportClosedException}
 * naming the loop, not an {@code IOException} wrapping Netty's refusal. A loop that dies of an
 * error refuses work from the moment Netty shuts it down, before its thread ends and the connector
 * hears of the death (NettyLoopDiedTest: then its sessions are closed and new connects refused).
 * The test holds the loop's thread in that gap, deterministically: the thread holds a value of a
 * test's {@link FastThreadLocal}, and Netty removes the thread's values after it has begun to refuse
 * work and before the loop is terminated; the value's removal waits for the test. Meanwhile a
 * connect (whose registration the loop refuses), a flush (its write), a STARTTLS (the task that adds
 * the TLS handler) and a read that resumes reading (the read handed to the loop) are made from the
 * test's thread.
 */
class NettyLoopRefusalTest {
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  @Test
  // A hang fails the test instead of blocking the build.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectAFlushAStartTlsAndAResumedReadThatTheDyingLoopRefusesFailAsItsDeath() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); DyingLoop dying = new DyingLoop()) {
      // Three connections made before the death, one per operation, each on the one loop.
      NettyTransport flushing = dying.connector.connect(tcp.address(), TEN_SECONDS);
      NettyTransport upgrading = dying.connector.connect(tcp.address(), TEN_SECONDS);
      NettyTransport reading = dying.connector.connect(tcp.address(), TEN_SECONDS);
      // Its echo fills the reader's buffer past the inbound limit: reading is suspended.
      reading.writeLine("x".repeat(4 * DyingLoop.INBOUND_LIMIT));
      reading.flush();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!reading.state().isReadSuspended()) {
        assertTrue(System.nanoTime() - end < 0, "reading was never suspended");
        // A poll of the channel's state, not an order made by sleeping.
        Thread.sleep(1);
      }
      dying.connectAndKill(tcp.address());
      String died = "Netty event loop " + dying.name + " died";
      // Refused registration (Weft's own connect path): the connect reports the loop's death.
      TransportClosedException e = assertThrows(TransportClosedException.class,
          () -> dying.connector.connect(tcp.address(), TEN_SECONDS));
      assertEquals("transport closed during connect to " + tcp.address() + ": " + died, e.getMessage());
      // Refused write.
      flushing.writeLine("ping");
      e = assertThrows(TransportClosedException.class, flushing::flush);
      assertEquals("transport closed during flush: " + died, e.getMessage());
      // Refused task that adds the TLS handler.
      e = assertThrows(TransportClosedException.class, () -> upgrading.startTls(TlsSettings.defaults()));
      assertTrue(e.getMessage().startsWith("transport closed during TLS handshake with ")
          && e.getMessage().endsWith(": " + died), e::toString);
      // Refused read: the read that drains the buffer resumes reading, which the loop refuses;
      // the bytes it took are its own, the next read meets the death.
      int buffered = reading.state().buffered();
      assertTrue(buffered > DyingLoop.INBOUND_LIMIT, () -> buffered + " bytes buffered");
      reading.readFully(new byte[buffered], 0, buffered);
      e = assertThrows(TransportClosedException.class, () -> reading.readLineStrict(64));
      assertTrue(e.getMessage().endsWith(died), e::toString);
      // The connector knows its loop is gone before the loop has ended.
      e = assertThrows(TransportClosedException.class, () -> dying.connector.connect(tcp.address(), TEN_SECONDS));
      assertEquals("connector is broken: " + died, e.getMessage());
      assertFalse(dying.loop.isTerminated(), "the loop was let go too early: the test proves nothing");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectThroughNettysBootstrapThatTheDyingLoopRefusesFailsAsItsDeath() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); DyingLoop dying = new DyingLoop()) {
      dying.connectAndKill(tcp.address());
      // An unresolved address goes through Netty's Bootstrap, which registers the channel itself.
      SocketAddress unresolved = InetSocketAddress.createUnresolved("localhost",
          ((InetSocketAddress) tcp.address()).getPort());
      TransportClosedException e = assertThrows(TransportClosedException.class,
          () -> dying.connector.connect(unresolved, TEN_SECONDS));
      assertEquals("transport closed during connect to " + unresolved + ": Netty event loop " + dying.name + " died",
          e.getMessage());
      assertFalse(dying.loop.isTerminated(), "the loop was let go too early: the test proves nothing");
    }
  }

  /**
   * A connector of one event loop that dies of an error when told, its thread then held between
   * the loop's shutdown (it refuses work) and its end (the connector is told) until this is closed.
   */
  private static final class DyingLoop implements AutoCloseable {
    static final int INBOUND_LIMIT = 1024;
    private final AtomicBoolean dying = new AtomicBoolean();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final FastThreadLocal<String> hold = new FastThreadLocal<>() {
      @Override
      protected void onRemoval(String value) throws Exception {
        held.countDown();
        // Bounded as a hang guard only: the test lets go in its close.
        release.await(60, TimeUnit.SECONDS);
      }
    };
    final NettyConnector connector;
    EventLoop loop;
    String name;

    DyingLoop() {
      SelectStrategy normal = DefaultSelectStrategyFactory.INSTANCE.newSelectStrategy();
      SelectStrategyFactory strategy = () -> (selectNow, hasTasks) -> {
        if (dying.get()) {
          throw new Error("the test's error inside the event loop");
        }
        return normal.calculateStrategy(selectNow, hasTasks);
      };
      connector = new NettyConnector(null, INBOUND_LIMIT, 1, "test", strategy);
    }

    /**
     * Connects to {@code address}, then kills the loop of that connection's channel and returns
     * once the loop refuses work, its thread held.
     */
    NettyTransport connectAndKill(SocketAddress address) throws Exception {
      NettyTransport transport = connector.connect(address, TEN_SECONDS);
      loop = transport.state().channel().eventLoop();
      name = loop.submit(() -> {
        hold.set("held");
        return Thread.currentThread().getName();
      }).get(10, TimeUnit.SECONDS);
      dying.set(true);
      // A task wakes the loop, whose next turn begins with the strategy, which throws.
      loop.execute(() -> { });
      assertTrue(held.await(30, TimeUnit.SECONDS), "the loop did not end");
      assertTrue(loop.isShutdown(), "the held loop does not refuse work yet");
      assertFalse(connector.isClosed());
      return transport;
    }

    @Override
    public void close() {
      release.countDown();
      connector.close();
    }
  }
}
