package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.LingerlessSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A flush made on the channel's own event loop (where a continuation resumed by its reply writes
 * its next request) goes straight to the socket, without Netty's outbound path (the pipeline's
 * walk, a pooled buffer and the copy into it, the outbound buffer's entry, a promise): the state's
 * send then has no future to wait for. Only there, and only where nothing could come between:
 * not off the loop, not behind bytes already queued in Netty's outbound buffer. A write the
 * socket refuses fails as Netty's flush fails it, and closes the channel.
 */
class NettyDirectWriteTest {
  private static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);
  private static final byte[] PING = "ping\n".getBytes(StandardCharsets.US_ASCII);

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSendOnTheEventLoopGoesStraightToTheSocketWithNoFutureToWaitFor() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      ChannelState state = transport.state();
      Channel ch = state.channel();
      assertInstanceOf(LingerlessSocketChannel.class, ch, "not the plaintext fast path's channel");
      Future<Object[]> sent = ch.eventLoop().submit(() -> {
        ChannelFuture written = state.send(PING, PING.length);
        return new Object[] {written, ch.unsafe().outboundBuffer().totalPendingWriteBytes()};
      });
      Object[] result = sent.get(30, TimeUnit.SECONDS);
      assertNull(result[0], "the send on the event loop handed its bytes to Netty's outbound path");
      assertEquals(0L, result[1], "bytes left in Netty's outbound buffer");
      assertEquals("ping", transport.readLine(100), "the peer's echo of the bytes written");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void offTheEventLoopTheSendGoesThroughNetty() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      ChannelState state = transport.state();
      ChannelFuture written = state.send(PING, PING.length);
      assertNotNull(written, "a send off the event loop wrote the socket itself");
      assertTrue(written.await(30, TimeUnit.SECONDS) && written.isSuccess(), () -> "the write failed: " + written.cause());
      assertEquals("ping", transport.readLine(100));
    }
  }

  /**
   * Bytes already in Netty's outbound buffer (written, not yet flushed) go first: the send then
   * queues behind them through Netty, whose flush writes both in order.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSendBehindBytesQueuedInNettyQueuesBehindThem() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      ChannelState state = transport.state();
      Channel ch = state.channel();
      Future<ChannelFuture> sent = ch.eventLoop().submit(() -> {
        ch.write(Unpooled.copiedBuffer("first\n", StandardCharsets.US_ASCII));
        return state.send(PING, PING.length);
      });
      ChannelFuture written = sent.get(30, TimeUnit.SECONDS);
      assertNotNull(written, "the send wrote the socket ahead of bytes queued in Netty");
      assertTrue(written.await(30, TimeUnit.SECONDS) && written.isSuccess(), () -> "the write failed: " + written.cause());
      assertEquals("first", transport.readLine(100));
      assertEquals("ping", transport.readLine(100));
    }
  }

  /**
   * The peer resets the connection; the channel does not read (auto-read off), so the send on the
   * event loop is the first to meet the reset. Its future fails with the socket's exception, the
   * channel closes, and the transport's flush then fails as docs/errors.md says for a reset
   * ({@code SocketException}, "Connection reset"). The send is repeated, one loop task at a time,
   * until the reset has reached the client's socket (a bounded wait for a condition, not a sleep).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSendOnTheEventLoopThatMeetsAResetFailsWithItAndClosesTheChannel() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
         NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()),
             FIVE_SECONDS)) {
      ChannelState state = transport.state();
      Channel ch = state.channel();
      ch.config().setAutoRead(false);
      try (Socket accepted = server.accept()) {
        accepted.setSoLinger(true, 0);
      }
      ChannelFuture failed = null;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (failed == null && System.nanoTime() - end < 0) {
        failed = ch.eventLoop().submit(() -> state.send(PING, PING.length)).get(30, TimeUnit.SECONDS);
      }
      assertNotNull(failed, "no send met the reset");
      ChannelFuture met = failed;
      assertTrue(met.isDone(), "the failed send's future is not done");
      assertFalse(met.isSuccess(), "the send that met the reset succeeded");
      assertInstanceOf(IOException.class, met.cause());
      assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "the channel did not close");
      SocketException e = assertThrows(SocketException.class, () -> state.checkWritten(met));
      assertTrue(e.getMessage().contains("Connection reset"), e.getMessage());
    }
  }
}
