package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.util.concurrent.Future;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.netty.internal.ChannelState;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The connect path of a plaintext Netty connect, which a connect per session pays each time: the
 * channel opened without a bootstrap's clone, and, on the channel's event loop, the connect issued
 * at once rather than queued as a task of its own for the loop's next turn. The channel is set up
 * as the bootstrap set it up.
 */
class NettyConnectPathTest {
  private static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);

  /**
   * On the event loop, where a session that reconnects issues its connect, the connect has
   * begun when {@code startConnect} returns: the JDK channel knows its peer. Through
   * {@code Bootstrap} it was a task the loop ran after the caller's own task, so the channel
   * did not know it yet.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectIssuedOnTheEventLoopHasBegunWhenStartConnectReturns() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp()) {
      SocketAddress address = tcp.address();
      // A first connection gives the test the connector's one event loop.
      try (NettyTransport first = connector.connect(address, FIVE_SECONDS)) {
        Channel firstChannel = first.state().channel();
        NettyConnector.Core core = connector.core();
        ChannelState state = core.register(address);
        Future<SocketAddress> peerAtReturn = firstChannel.eventLoop().submit(() -> {
          Future<?> connect = core.startConnect(address, state);
          return ((ChannelFuture) connect).channel().remoteAddress();
        });
        SocketAddress peer = peerAtReturn.get(30, TimeUnit.SECONDS);
        core.abandon(state, "test over");
        assertNotNull(peer, "the connect had not begun when startConnect returned on the event loop");
        assertEquals(((InetSocketAddress) address).getPort(), ((InetSocketAddress) peer).getPort());
      }
    }
  }

  /**
   * A connect made off the event loop, whose registration is a task for the loop, is issued
   * after the pipeline has heard {@code channelRegistered}, as {@code Bootstrap.doConnect} issues
   * it: not from the registration's listener, which Netty runs inside {@code register0} before
   * {@code channelRegistered} (where a connect can complete at once, {@code channelActive} would
   * then come before it, and twice). The loop is held by a task of the test's until the channel
   * and a recording handler are in place, so the order does not depend on timing; the JDK channel
   * knows its peer once the connect has been issued.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectMadeOffTheLoopIsIssuedAfterChannelRegistered() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp()) {
      SocketAddress address = tcp.address();
      try (NettyTransport first = connector.connect(address, FIVE_SECONDS)) {
        EventLoop loop = first.state().channel().eventLoop();
        NettyConnector.Core core = connector.core();
        ChannelState state = core.register(address);
        CountDownLatch release = new CountDownLatch(1);
        loop.execute(() -> {
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        ChannelFuture connect;
        CompletableFuture<SocketAddress> peerAtRegistered = new CompletableFuture<>();
        try {
          connect = (ChannelFuture) core.startConnect(address, state);
          connect.channel().pipeline().addFirst(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRegistered(ChannelHandlerContext ctx) {
              peerAtRegistered.complete(ctx.channel().remoteAddress());
              ctx.fireChannelRegistered();
            }
          });
        } finally {
          release.countDown();
        }
        assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect did not end");
        SocketAddress peer = peerAtRegistered.get(30, TimeUnit.SECONDS);
        core.abandon(state, "test over");
        assertNull(peer, "the connect was issued before channelRegistered");
        assertTrue(connect.isSuccess(), () -> "the connect failed: " + connect.cause());
      }
    }
  }

  /**
   * A connect made on one of the connector's event loops is registered with that loop, not with
   * the group's next one: with two loops, Netty's round robin gave one connect in two to the other
   * loop (a task and a wake-up of that loop, and the session's resumes moved there).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void connectsMadeOnAnEventLoopStayOnThatLoop() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(2).tcp()) {
      SocketAddress address = tcp.address();
      try (NettyTransport first = connector.connect(address, FIVE_SECONDS)) {
        Channel firstChannel = first.state().channel();
        NettyConnector.Core core = connector.core();
        ChannelState a = core.register(address);
        ChannelState b = core.register(address);
        Future<String> where = firstChannel.eventLoop().submit(() -> {
          StringBuilder loops = new StringBuilder();
          for (ChannelState state : new ChannelState[] {a, b}) {
            Channel ch = ((ChannelFuture) core.startConnect(address, state)).channel();
            loops.append(ch.eventLoop().inEventLoop() ? "here " : "elsewhere ");
          }
          return loops.toString().trim();
        });
        String loops = where.get(30, TimeUnit.SECONDS);
        core.abandon(a, "test over");
        core.abandon(b, "test over");
        assertEquals("here here", loops, "the event loops of two connects made on one loop");
      }
    }
  }

  /**
   * The channel of a connect is set up as the bootstrap set it up (no delay, the pooled allocator,
   * no connect timeout of Netty's own, no linger), carries a session's bytes and closes.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void theChannelHasNoDelayThePooledAllocatorAndNoConnectTimeoutOfNettysOwn() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      SocketChannelConfig config = (SocketChannelConfig) transport.state().channel().config();
      assertTrue(config.isTcpNoDelay());
      assertSame(PooledByteBufAllocator.DEFAULT, config.getAllocator());
      assertEquals(0, config.getConnectTimeoutMillis());
      // No linger: the close that skips Netty's check of it closes on the event loop, as Netty's would.
      assertEquals(-1, config.getSoLinger());
      transport.write("ping\n".getBytes(StandardCharsets.US_ASCII));
      transport.flush();
      assertEquals("ping", transport.readLine(100));
      transport.close();
      assertFalse(transport.isOpen());
    }
  }
}
