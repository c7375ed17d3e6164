package io.weft.transport.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Weft channel says whether its input is shut (what Netty's read loop asks before each read)
 * exactly as Netty's own NIO socket channel does, at every step of a connection's life: made,
 * connected, its output shut, its input shut, closed; and after the peer closed it. Both kinds
 * are connected side by side to a real loopback server.
 */
class LingerlessSocketChannelInputShutdownTest {
  private NioEventLoopGroup group;
  private ServerSocket server;
  private final List<Socket> accepted = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    group = new NioEventLoopGroup(1, EventLoops.threads("input-shutdown-test-"));
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
  }

  @AfterEach
  void stop() throws Exception {
    for (Socket s : accepted) {
      s.close();
    }
    server.close();
    group.shutdownGracefully(0L, 5L, TimeUnit.SECONDS).syncUninterruptibly();
  }

  private NioSocketChannel connect(Supplier<NioSocketChannel> make) throws Exception {
    NioSocketChannel channel = (NioSocketChannel) new Bootstrap().group(group).channelFactory(make::get)
        .handler(new ChannelInboundHandlerAdapter())
        .connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()))
        .syncUninterruptibly().channel();
    accepted.add(server.accept());
    return channel;
  }

  private static LingerlessSocketChannel weft() {
    return new LingerlessSocketChannel(SelectorProvider.provider());
  }

  private static String answers(NioSocketChannel channel) {
    return "input shut " + channel.isInputShutdown() + ", output shut " + channel.isOutputShutdown() + ", active "
        + channel.isActive();
  }

  @Test
  void answersAsNettysOwnChannelAtEveryStep() throws Exception {
    NioSocketChannel unconnectedNetty = new NioSocketChannel();
    LingerlessSocketChannel unconnectedWeft = weft();
    assertEquals(answers(unconnectedNetty), answers(unconnectedWeft), "made, not connected");
    assertTrue(unconnectedWeft.isInputShutdown());
    unconnectedNetty.unsafe().closeForcibly();
    unconnectedWeft.unsafe().closeForcibly();

    NioSocketChannel netty = connect(NioSocketChannel::new);
    NioSocketChannel weft = connect(LingerlessSocketChannelInputShutdownTest::weft);
    assertEquals("input shut false, output shut false, active true", answers(netty), "connected");
    assertEquals(answers(netty), answers(weft), "connected");

    netty.shutdownOutput().syncUninterruptibly();
    weft.shutdownOutput().syncUninterruptibly();
    assertEquals("input shut false, output shut true, active true", answers(netty), "output shut");
    assertEquals(answers(netty), answers(weft), "output shut");

    netty.shutdownInput().syncUninterruptibly();
    weft.shutdownInput().syncUninterruptibly();
    assertEquals("input shut true, output shut true, active true", answers(netty), "input shut");
    assertEquals(answers(netty), answers(weft), "input shut");

    netty.close().syncUninterruptibly();
    weft.close().syncUninterruptibly();
    assertEquals("input shut true, output shut true, active false", answers(netty), "closed");
    assertEquals(answers(netty), answers(weft), "closed");
  }

  @Test
  void answersAsNettysOwnChannelWhenOnlyItsInputIsShut() throws Exception {
    NioSocketChannel netty = connect(NioSocketChannel::new);
    NioSocketChannel weft = connect(LingerlessSocketChannelInputShutdownTest::weft);
    netty.shutdownInput().syncUninterruptibly();
    weft.shutdownInput().syncUninterruptibly();
    assertEquals("input shut true, output shut false, active true", answers(netty));
    assertEquals(answers(netty), answers(weft));
    netty.close().syncUninterruptibly();
    weft.close().syncUninterruptibly();
  }

  @Test
  void answersAsNettysOwnChannelOnceThePeerHasClosed() throws Exception {
    NioSocketChannel netty = connect(NioSocketChannel::new);
    NioSocketChannel weft = connect(LingerlessSocketChannelInputShutdownTest::weft);
    for (Socket s : accepted) {
      s.close();
    }
    // Half-closure is off: each channel's read loop meets the end of stream and closes the channel.
    netty.closeFuture().syncUninterruptibly();
    weft.closeFuture().syncUninterruptibly();
    assertEquals("input shut true, output shut true, active false", answers(netty));
    assertEquals(answers(netty), answers(weft));
  }
}
