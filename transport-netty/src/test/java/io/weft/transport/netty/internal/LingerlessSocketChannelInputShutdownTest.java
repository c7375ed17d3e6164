package io.weft.transport.netty.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.spi.SelectorProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A Weft channel says whether its input and its output are shut (what Netty's read loop asks
 * before each read, and its direct write before each write) exactly as Netty's own NIO socket
 * channel does, at every step of a connection's life: made, connected, its output shut, its input
 * shut, both at once ({@code shutdown()}), closed; after the peer closed it; and after the peer's
 * FIN with half-closure allowed, where Netty's read loop shuts the input itself. Both kinds are
 * connected side by side to a real loopback server; whichever way a Netty version shuts a side,
 * the two must agree. The JUnit timeout only bounds a hang.
 */
@Timeout(60)
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
    return connect(make, false, new ChannelInboundHandlerAdapter());
  }

  private NioSocketChannel connect(Supplier<NioSocketChannel> make, boolean halfClosure,
      ChannelInboundHandlerAdapter handler) throws Exception {
    NioSocketChannel channel = (NioSocketChannel) new Bootstrap().group(group).channelFactory(make::get)
        .option(ChannelOption.ALLOW_HALF_CLOSURE, halfClosure)
        .handler(handler)
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
    answersAsNettysOwnChannelAfter(NioSocketChannel::shutdownInput, "input shut true, output shut false, active true");
  }

  @Test
  void answersAsNettysOwnChannelWhenOnlyItsOutputIsShut() throws Exception {
    answersAsNettysOwnChannelAfter(NioSocketChannel::shutdownOutput, "input shut false, output shut true, active true");
  }

  @Test
  void answersAsNettysOwnChannelWhenShutBothWaysAtOnce() throws Exception {
    answersAsNettysOwnChannelAfter(NioSocketChannel::shutdown, "input shut true, output shut true, active true");
  }

  private void answersAsNettysOwnChannelAfter(Function<NioSocketChannel, ChannelFuture> shut, String nettys)
      throws Exception {
    NioSocketChannel netty = connect(NioSocketChannel::new);
    NioSocketChannel weft = connect(LingerlessSocketChannelInputShutdownTest::weft);
    shut.apply(netty).syncUninterruptibly();
    shut.apply(weft).syncUninterruptibly();
    assertEquals(nettys, answers(netty));
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

  @Test
  void answersAsNettysOwnChannelWhenItsReadLoopShutsTheInputOnThePeersFin() throws Exception {
    InputShutdownEvents nettyEvents = new InputShutdownEvents();
    InputShutdownEvents weftEvents = new InputShutdownEvents();
    NioSocketChannel netty = connect(NioSocketChannel::new, true, nettyEvents);
    NioSocketChannel weft = connect(LingerlessSocketChannelInputShutdownTest::weft, true, weftEvents);
    for (Socket s : accepted) {
      s.shutdownOutput();
    }
    // Half-closure on: each read loop shuts its channel's input at the FIN and tells the pipeline;
    // at its next read, seeing the input shut, it says the reads are over and stays open.
    List<String> nettySeen = nettyEvents.done.join();
    List<String> weftSeen = weftEvents.done.join();
    assertEquals(List.of("ChannelInputShutdownEvent: input shut true, output shut false, active true",
        "ChannelInputShutdownReadComplete: input shut true, output shut false, active true"), nettySeen);
    assertEquals(nettySeen, weftSeen);
    assertEquals("input shut true, output shut false, active true", answers(netty));
    assertEquals(answers(netty), answers(weft));
    netty.close().syncUninterruptibly();
    weft.close().syncUninterruptibly();
  }

  /**
   * Notes each input-shutdown event with the channel's answers when it came, on the event loop;
   * done at the reads' end, or at a third event (a channel that reports its input open after its
   * read loop shut it would shut it again at every read).
   */
  private static final class InputShutdownEvents extends ChannelInboundHandlerAdapter {
    final List<String> seen = new CopyOnWriteArrayList<>();
    final CompletableFuture<List<String>> done = new CompletableFuture<>();

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof ChannelInputShutdownEvent || event instanceof ChannelInputShutdownReadComplete) {
        seen.add(event.getClass().getSimpleName() + ": " + answers((NioSocketChannel) ctx.channel()));
        if (event instanceof ChannelInputShutdownReadComplete || seen.size() >= 3) {
          done.complete(List.copyOf(seen));
        }
      }
      ctx.fireUserEventTriggered(event);
    }
  }
}
