package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import io.netty.channel.ChannelOption;
import io.netty.util.concurrent.Future;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.LingerlessSocketChannel;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
   * A send above {@link LingerlessSocketChannel#MAX_DIRECT_BYTES} goes through Netty's pooled
   * buffers even on the loop: the JDK would copy it into a temporary direct buffer as large as it
   * and keep that for the loop thread's life.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSendAboveTheCapGoesThroughNettyEvenOnTheEventLoop() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      ChannelState state = transport.state();
      Channel ch = state.channel();
      byte[] line = new byte[LingerlessSocketChannel.MAX_DIRECT_BYTES + 1];
      Arrays.fill(line, (byte) 'x');
      line[line.length - 1] = '\n';
      ChannelFuture written = ch.eventLoop().submit(() -> state.send(line, line.length)).get(30, TimeUnit.SECONDS);
      assertNotNull(written, "a send above the cap wrote the socket itself");
      assertTrue(written.await(30, TimeUnit.SECONDS) && written.isSuccess(), () -> "the write failed: " + written.cause());
      assertEquals(LingerlessSocketChannel.MAX_DIRECT_BYTES, transport.readLine(line.length).length());
    }
  }

  /**
   * A direct write the socket takes only part of: the rest goes to Netty after it, a later send
   * queues behind that rest, and the peer receives every byte once, in order. The peer does not
   * read until every send is made, and both ends' socket buffers are small, so the sends (each at
   * the cap, written straight to the socket while nothing is queued) fill them.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aPartialDirectWriteLeavesTheRestToNettyInOrder() throws Exception {
    try (ServerSocket server = new ServerSocket()) {
      server.setReceiveBufferSize(4096);
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      try (NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
           NettyTransport transport = connector.connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()),
               FIVE_SECONDS);
           Socket peer = server.accept()) {
        ChannelState state = transport.state();
        Channel ch = state.channel();
        assertInstanceOf(LingerlessSocketChannel.class, ch, "not the plaintext fast path's channel");
        ch.config().setOption(ChannelOption.SO_SNDBUF, 4096);
        int chunk = LingerlessSocketChannel.MAX_DIRECT_BYTES;
        int maxChunks = 64;
        byte[] stream = new byte[chunk * maxChunks + 100];
        for (int i = 0; i < stream.length; i++) {
          stream[i] = (byte) (i * 31 % 251);
        }
        Object[] first = ch.eventLoop().submit(() -> {
          int chunks = 0;
          ChannelFuture queued = null;
          while (queued == null && chunks < maxChunks) {
            queued = state.send(Arrays.copyOfRange(stream, chunks * chunk, (chunks + 1) * chunk), chunk);
            chunks++;
          }
          return new Object[] {chunks, queued, ch.unsafe().outboundBuffer().totalPendingWriteBytes()};
        }).get(30, TimeUnit.SECONDS);
        int chunks = (Integer) first[0];
        ChannelFuture rest = (ChannelFuture) first[1];
        assertNotNull(rest, "the socket took " + chunks + " chunks of " + chunk + " bytes from a peer that does not read");
        long pending = (Long) first[2];
        assertTrue(pending > 0 && pending <= chunk, "bytes left to Netty: " + pending);
        int sent = chunks * chunk;
        ChannelFuture second = ch.eventLoop().submit(() -> state.send(Arrays.copyOfRange(stream, sent, sent + 100), 100))
            .get(30, TimeUnit.SECONDS);
        assertNotNull(second, "a send behind bytes left to Netty wrote the socket itself");
        byte[] received = new byte[sent + 100];
        new DataInputStream(peer.getInputStream()).readFully(received);
        assertArrayEquals(Arrays.copyOf(stream, sent + 100), received, "the bytes the peer received");
        assertTrue(rest.await(30, TimeUnit.SECONDS) && rest.isSuccess(), () -> "the rest's write failed: " + rest.cause());
        assertTrue(second.await(30, TimeUnit.SECONDS) && second.isSuccess(), () -> "the second write failed: " + second.cause());
      }
    }
  }

  /**
   * The peer resets the connection; the channel does not read (auto-read turned off on its event
   * loop before the reset, so no read event can come), so the send on the event loop is the first
   * to meet the reset. Its future fails with the socket's exception (the reset, not a closed
   * channel's or a broken pipe's), the channel closes, and the transport's flush then fails as
   * docs/errors.md says for a reset ({@code SocketException}, "Connection reset"). Until the reset
   * has reached the client's socket the sends go through (no future); a bounded number of loop
   * tasks, the test's timeout its watchdog.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSendOnTheEventLoopThatMeetsAResetFailsWithItAndClosesTheChannel() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
         NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()),
             FIVE_SECONDS)) {
      ChannelState state = transport.state();
      Channel ch = state.channel();
      ch.eventLoop().submit(() -> ch.config().setAutoRead(false)).get(30, TimeUnit.SECONDS);
      try (Socket accepted = server.accept()) {
        accepted.setSoLinger(true, 0);
      }
      ChannelFuture failed = null;
      for (int attempt = 0; failed == null && attempt < 10_000; attempt++) {
        failed = ch.eventLoop().submit(() -> state.send(PING, PING.length)).get(30, TimeUnit.SECONDS);
      }
      assertNotNull(failed, "no send met the reset");
      ChannelFuture met = failed;
      assertTrue(met.isDone(), "the failed send's future is not done");
      assertFalse(met.isSuccess(), "the send that met the reset succeeded");
      assertInstanceOf(IOException.class, met.cause());
      assertFalse(met.cause() instanceof ClosedChannelException, () -> "not the reset: " + met.cause());
      assertTrue(String.valueOf(met.cause().getMessage()).contains("reset"), () -> "not the reset: " + met.cause());
      assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "the channel did not close");
      SocketException e = assertThrows(SocketException.class, () -> state.checkWritten(met));
      assertTrue(e.getMessage().contains("Connection reset"), e.getMessage());
    }
  }
}
