package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Timeout;
import io.weft.transport.netty.internal.EventLoops;
import io.weft.transport.netty.internal.LingerlessSocketChannel;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A plaintext Weft channel reads the socket into its event loop's own direct buffer, not into a
 * buffer taken from Netty's pool and given back after each read (as MINA's processor reads into
 * its thread's buffer): the loop's count of such reads shows it, over real loopback sockets. The
 * bytes arrive as they were sent, across reads of every size the read loop asks for, read
 * suspension above the inbound limit, and two channels sharing the loop and its buffer.
 */
class NettyLoopReadBufferTest {
  private static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);

  /** The reads the channel's event loop served from its own buffer so far, asked on that loop. */
  private static long ownBufferReads(Channel ch) throws Exception {
    return ch.eventLoop().submit(EventLoops::ownBufferReads).get(30, TimeUnit.SECONDS);
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aPlaintextChannelReadsIntoItsEventLoopsOwnBuffer() throws Exception {
    int exchanges = 400;
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      Channel ch = transport.state().channel();
      assertInstanceOf(LingerlessSocketChannel.class, ch, "not the plaintext fast path's channel");
      long before = ownBufferReads(ch);
      for (int i = 0; i < exchanges; i++) {
        transport.writeLine("line " + i);
        transport.flush();
        assertEquals("line " + i, transport.readLine(100));
      }
      long reads = ownBufferReads(ch) - before;
      // Every reply needs at least one read; each was made into the loop's buffer, none into a pooled one.
      assertTrue(reads >= exchanges, () -> reads + " reads into the event loop's buffer for " + exchanges + " replies");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aChannelWithAnotherHandlerReadsIntoPooledBuffers() throws Exception {
    int exchanges = 100;
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp();
         NettyTransport transport = connector.connect(tcp.address(), FIVE_SECONDS)) {
      Channel ch = transport.state().channel();
      assertInstanceOf(LingerlessSocketChannel.class, ch, "not the plaintext fast path's channel");
      transport.writeLine("alone");
      transport.flush();
      assertEquals("alone", transport.readLine(100));
      assertTrue(ownBufferReads(ch) > 0, "Weft's handler alone: not read into the loop's buffer");
      // Any other handler (as STARTTLS's SslHandler, added first on the loop) could keep or view a
      // read's buffer: from then on the channel's reads take pooled buffers.
      ch.eventLoop().submit(() -> ch.pipeline().addFirst("another", new ChannelInboundHandlerAdapter()))
          .get(30, TimeUnit.SECONDS);
      long before = ownBufferReads(ch);
      for (int i = 0; i < exchanges; i++) {
        transport.writeLine("line " + i);
        transport.flush();
        assertEquals("line " + i, transport.readLine(100));
      }
      assertEquals(before, ownBufferReads(ch), "reads into the loop's buffer with another handler in the pipeline");
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void bytesOfTwoChannelsSharingTheLoopsBufferArriveIntact() throws Exception {
    byte[] first = new byte[300_000];
    byte[] second = new byte[200_003];
    new Random(21).nextBytes(first);
    new Random(22).nextBytes(second);
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
         NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp()) {
      InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
      AtomicReference<Throwable> failed = new AtomicReference<>();
      Thread peer = new Thread(() -> {
        try (Socket a = server.accept(); Socket b = server.accept()) {
          OutputStream outA = a.getOutputStream();
          OutputStream outB = b.getOutputStream();
          // Interleaved, in pieces of many sizes, so that both channels' reads alternate on the loop.
          int at = 0;
          int bt = 0;
          for (int piece = 1; at < first.length || bt < second.length; piece = piece * 3 % 70_001 + 1) {
            int n = Math.min(piece, first.length - at);
            outA.write(first, at, n);
            outA.flush();
            at += n;
            int m = Math.min(piece, second.length - bt);
            outB.write(second, bt, m);
            outB.flush();
            bt += m;
          }
        } catch (Throwable e) {
          failed.set(e);
        }
      }, "loop-read-buffer-peer");
      peer.setDaemon(true);
      peer.start();
      try (NettyTransport a = connector.connect(address, FIVE_SECONDS);
           NettyTransport b = connector.connect(address, FIVE_SECONDS)) {
        assertInstanceOf(LingerlessSocketChannel.class, a.state().channel());
        assertEquals(a.state().channel().eventLoop(), b.state().channel().eventLoop(), "not one loop");
        long before = ownBufferReads(a.state().channel());
        byte[] gotA = new byte[first.length];
        byte[] gotB = new byte[second.length];
        // Read alternately, a little at a time, while the loop delivers both.
        int at = 0;
        int bt = 0;
        while (at < gotA.length || bt < gotB.length) {
          if (at < gotA.length) {
            int n = Math.min(4_096, gotA.length - at);
            a.readFully(gotA, at, n);
            at += n;
          }
          if (bt < gotB.length) {
            int n = Math.min(4_096, gotB.length - bt);
            b.readFully(gotB, bt, n);
            bt += n;
          }
        }
        assertArrayEquals(first, gotA, "first channel's bytes");
        assertArrayEquals(second, gotB, "second channel's bytes");
        long reads = ownBufferReads(b.state().channel()) - before;
        assertTrue(reads >= (first.length + second.length) / (64 * 1024),
            () -> "only " + reads + " reads into the event loop's buffer");
      }
      peer.join(TimeUnit.SECONDS.toMillis(30));
      assertEquals(null, failed.get(), "the peer failed");
    }
  }
}
