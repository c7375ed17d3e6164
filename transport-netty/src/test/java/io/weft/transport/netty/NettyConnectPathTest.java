package io.weft.transport.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.AbstractNioChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.Future;
import io.weft.testsupport.EchoServer;
import io.weft.testsupport.FaultyPeer;
import io.weft.testsupport.FullBacklog;
import io.weft.transport.Timeout;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.LingerlessSocketChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.spi.SelectorProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The connect path of a plaintext Netty connect, which a connect per session pays each time: the
 * channel opened without a bootstrap's clone, and, on the channel's event loop, the connect issued
 * at once rather than queued as a task of its own for the loop's next turn, and finished at once
 * where the handshake was made inside the {@code connect} call (loopback). The channel is set up
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
   * A plaintext connect to a resolved address takes the fast path (its channel is a
   * {@link LingerlessSocketChannel}, which main's Bootstrap path never made), and its channel is
   * set up option by option as the bootstrap sets up the channel of a connect to an unresolved
   * address, which still goes through it: a later option added to one place and not the other
   * fails here. Values that are a fresh object per channel (the receive buffer allocator's
   * state, say) are compared by class; the rest by value. The fast-path channel carries a
   * session's bytes and closes.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void theFastPathsChannelIsSetUpAsTheBootstrapsOptionByOption() throws Exception {
    try (EchoServer tcp = EchoServer.tcp(); NettyConnector connector = NettyConnector.tcp();
         NettyTransport fast = connector.connect(tcp.address(), FIVE_SECONDS);
         NettyTransport viaBootstrap = connector.connect(
             InetSocketAddress.createUnresolved("localhost", ((InetSocketAddress) tcp.address()).getPort()), FIVE_SECONDS)) {
      assertInstanceOf(LingerlessSocketChannel.class, fast.state().channel(), "not the fast path");
      assertFalse(viaBootstrap.state().channel() instanceof LingerlessSocketChannel, "not the Bootstrap path");
      Map<String, Object> fastOptions = options(fast.state().channel().config());
      Map<String, Object> bootstrapOptions = options(viaBootstrap.state().channel().config());
      assertEquals(bootstrapOptions, fastOptions);
      assertEquals(Boolean.TRUE, fastOptions.get("TCP_NODELAY"));
      assertEquals(0, fastOptions.get("CONNECT_TIMEOUT_MILLIS"));
      fast.write("ping\n".getBytes(StandardCharsets.US_ASCII));
      fast.flush();
      assertEquals("ping", fast.readLine(100));
      fast.close();
      assertFalse(fast.isOpen());
    }
  }

  /**
   * A connect to a loopback listener is done when the channel's {@code connect} returns on its
   * event loop exactly when the kernel had made the handshake inside the {@code connect} call
   * (its socket ESTABLISHED in {@code /proc/net/tcp} or {@code tcp6} just after the return):
   * the channel then finishes it there rather than at the loop's next select, and no longer asks
   * the selector for {@code OP_CONNECT} (left set on a connected socket it would report
   * writable at every select, with nothing selected: the loop would spin). Netty fires
   * {@code channelActive} once, and the channel carries bytes both ways (its interest is then
   * reads only). On main a connect was never done at that return, ESTABLISHED or not: its
   * finish waited for the select. Five connects; where the kernel made none of the handshakes
   * inside {@code connect} (RPS on {@code lo}, softirqs in threads or left to ksoftirqd), the
   * test has nothing to check and is skipped, saying so.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aLoopbackConnectIsDoneWhenItReturnsOnTheEventLoopAndActiveOnce() throws Exception {
    assumeTrue(Files.isReadable(Path.of("/proc/net/tcp")), "no /proc/net/tcp to read the socket's state from");
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (EchoServer tcp = EchoServer.tcp()) {
      EventLoop loop = group.next();
      int server = ((InetSocketAddress) tcp.address()).getPort();
      int establishedAtReturn = 0;
      for (int i = 0; i < 5; i++) {
        LingerlessSocketChannel ch = new LingerlessSocketChannel(SelectorProvider.provider());
        Pinging pinging = new Pinging();
        ch.pipeline().addLast(pinging);
        int connect = i;
        Future<String> atReturn = loop.submit(() -> {
          registerHere(loop, ch);
          boolean done = ch.connect(tcp.address()).isDone();
          int local = ((InetSocketAddress) ch.localAddress()).getPort();
          String state = tcpState(local, server);
          int ops = selectionKey(ch).interestOps();
          return done + " " + state + " " + ops;
        });
        String[] at = atReturn.get(30, TimeUnit.SECONDS).split(" ");
        boolean done = Boolean.parseBoolean(at[0]);
        boolean established = "01".equals(at[1]);
        int ops = Integer.parseInt(at[2]);
        if (established) {
          establishedAtReturn++;
        }
        assertEquals(established, done, () -> "connect " + connect + ": done at return " + done
            + ", its socket's kernel state just after the return " + at[1] + " (01 = ESTABLISHED)");
        if (done) {
          assertEquals(0, ops & SelectionKey.OP_CONNECT, () -> "connect " + connect
              + ": OP_CONNECT still in the interest ops of a connect done at return (" + ops + ")");
        }
        pinging.assertEchoedAndReadingOnly(loop, ch);
      }
      assumeTrue(establishedAtReturn > 0, "the kernel made none of 5 loopback handshakes inside connect()"
          + " (RPS on lo, threaded or deferred softirqs?): no connect here could be finished at its return");
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }
  }

  /**
   * A connect whose handshake the kernel did not make inside {@code connect} (as on any real
   * network; here a listener whose accept queue is full drops the SYN) is finished through the
   * selector, as before the fast path finished loopback connects at once: not done when
   * {@code connect} returns on the loop, its socket in {@code SYN_SENT} and its key asking for
   * {@code OP_CONNECT} alone; once the listener takes its queue's fillers, the SYN's retry gets in,
   * the select reports the connect, and Netty's finish completes it: {@code channelActive} once,
   * bytes both ways, interest reads only. A channel that left the key without {@code OP_CONNECT}
   * there would never hear of its connect (the hang guard fails it).
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectStillUnderWayWhenConnectReturnsIsFinishedThroughTheSelector() throws Exception {
    assumeTrue(FullBacklog.canCheck(), FullBacklog.CANNOT_CHECK);
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try (FullBacklog full = new FullBacklog()) {
      EventLoop loop = group.next();
      LingerlessSocketChannel ch = new LingerlessSocketChannel(SelectorProvider.provider());
      Pinging pinging = new Pinging();
      ch.pipeline().addLast(pinging);
      CompletableFuture<ChannelFuture> connecting = new CompletableFuture<>();
      String[] at = loop.submit(() -> {
        registerHere(loop, ch);
        ChannelFuture connect = ch.connect(full.address());
        connecting.complete(connect);
        return connect.isDone() + " " + full.synSent() + " " + selectionKey(ch).interestOps();
      }).get(30, TimeUnit.SECONDS).split(" ");
      assertEquals("false", at[0], "a connect to a full accept queue was done when connect returned");
      assertEquals("1", at[1], "sockets in SYN_SENT to the full listener just after the return");
      assertEquals(SelectionKey.OP_CONNECT, Integer.parseInt(at[2]), "the interest ops of a connect under way");
      assertEquals(0, pinging.actives.get(), "channelActive fired before the connect was finished");
      full.acceptFillers();
      try (Socket peer = full.accept()) {
        ChannelFuture connect = connecting.get();
        assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect did not end");
        assertTrue(connect.isSuccess(), () -> "the connect failed: " + connect.cause());
        BufferedReader in = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.US_ASCII));
        String line = in.readLine();
        peer.getOutputStream().write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        peer.getOutputStream().flush();
        pinging.assertEchoedAndReadingOnly(loop, ch);
      }
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }
  }

  /**
   * Weft's connect that stays under way (a full accept queue) ends at its timeout with
   * docs/errors.md's words, and its socket is closed: the kernel drops it rather than retrying
   * its SYN for minutes.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aConnectThatStaysUnderWayTimesOutAndClosesItsSocket() throws Exception {
    assumeTrue(FullBacklog.canCheck(), FullBacklog.CANNOT_CHECK);
    try (FullBacklog full = new FullBacklog(); NettyConnector connector = NettyConnector.builder().eventLoopThreads(1).tcp()) {
      for (int i = 0; i < 2; i++) {
        TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
            () -> connector.connect(full.address(), Timeout.of(200, TimeUnit.MILLISECONDS)).close());
        assertEquals("connect to " + full.address() + " timed out after 200 ms", e.getMessage());
      }
      // A bounded poll of the kernel's table (the close is made on the loop).
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (full.synSent() > 0) {
        assertTrue(System.nanoTime() - end < 0, "the timed-out connects' sockets are still in SYN_SENT 30 s later");
        Thread.sleep(10);
      }
    }
  }

  /** Counts {@code channelActive}, sends {@code ping} at it, and completes {@link #echoed} with the first line back. */
  private static final class Pinging extends ChannelInboundHandlerAdapter {
    final AtomicInteger actives = new AtomicInteger();
    final CompletableFuture<String> echoed = new CompletableFuture<>();
    private final StringBuilder received = new StringBuilder();

    /** {@code ping} came back, {@code channelActive} fired once, and {@code ch} now asks only for reads; then closes it. */
    void assertEchoedAndReadingOnly(EventLoop loop, Channel ch) throws Exception {
      assertEquals("ping\n", echoed.get(30, TimeUnit.SECONDS), "the bytes that came back");
      assertEquals(1, actives.get(), "channelActive fired");
      int opsAfter = loop.submit(() -> selectionKey(ch).interestOps()).get(30, TimeUnit.SECONDS);
      assertEquals(SelectionKey.OP_READ, opsAfter, "the interest ops after the echo");
      ch.close().sync();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      actives.incrementAndGet();
      ctx.writeAndFlush(Unpooled.copiedBuffer("ping\n", StandardCharsets.US_ASCII));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      received.append(buf.toString(StandardCharsets.US_ASCII));
      buf.release();
      if (received.indexOf("\n") >= 0) {
        echoed.complete(received.toString());
      }
    }
  }

  /** The channel's selection key, which Netty keeps to itself ({@code AbstractNioChannel.selectionKey()}). */
  private static SelectionKey selectionKey(Channel ch) throws ReflectiveOperationException {
    Method m = AbstractNioChannel.class.getDeclaredMethod("selectionKey");
    m.setAccessible(true);
    return (SelectionKey) m.invoke(ch);
  }

  /**
   * The kernel's state (hex, {@code 01} ESTABLISHED, {@code 02} SYN_SENT) of the loopback socket
   * from {@code local} to {@code remote}, from {@code /proc/net/tcp} and {@code tcp6}; {@code -}
   * if neither lists it.
   */
  private static String tcpState(int local, int remote) throws IOException {
    String localPort = String.format(Locale.ROOT, ":%04X", local);
    String remotePort = String.format(Locale.ROOT, ":%04X", remote);
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      Path path = Path.of(table);
      if (!Files.isReadable(path)) {
        continue;
      }
      for (String line : Files.readAllLines(path)) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[1].endsWith(localPort) && f[2].endsWith(remotePort)) {
          return f[3];
        }
      }
    }
    return "-";
  }

  /**
   * A connect refused on loopback, finished where it is issued, fails its promise as Netty's own
   * finish does: a {@link ConnectException} naming the address, and the channel closed, with
   * no {@code channelActive}.
   */
  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aRefusedLoopbackConnectFailsWithConnectExceptionNamingTheAddressAndCloses() throws Exception {
    NioEventLoopGroup group = new NioEventLoopGroup(1);
    try {
      EventLoop loop = group.next();
      InetSocketAddress refused = FaultyPeer.refusingAddress();
      LingerlessSocketChannel ch = new LingerlessSocketChannel(SelectorProvider.provider());
      AtomicInteger actives = new AtomicInteger();
      ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
          actives.incrementAndGet();
        }
      });
      ChannelFuture connect = loop.submit(() -> {
        registerHere(loop, ch);
        return ch.connect(refused);
      }).get(30, TimeUnit.SECONDS);
      assertTrue(connect.await(30, TimeUnit.SECONDS), "the connect did not end");
      Throwable cause = connect.cause();
      assertInstanceOf(ConnectException.class, cause, () -> "the connect's failure: " + cause);
      assertTrue(cause.getMessage().contains(":" + refused.getPort()), () -> "does not name " + refused + ": " + cause);
      assertTrue(ch.closeFuture().await(30, TimeUnit.SECONDS), "the channel was not closed");
      assertEquals(0, actives.get(), "channelActive fired");
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
    }
  }

  /** Registers {@code ch} with {@code loop}, on that loop: done on return. */
  private static void registerHere(EventLoop loop, Channel ch) {
    ChannelFuture registered = loop.register(ch);
    if (!registered.isSuccess()) {
      throw new AssertionError("not registered at once on its loop: " + registered.cause());
    }
  }

  private static Map<String, Object> options(ChannelConfig config) {
    Map<String, Object> byName = new TreeMap<>();
    for (Map.Entry<ChannelOption<?>, Object> e : config.getOptions().entrySet()) {
      Object v = e.getValue();
      boolean byValue = v == null || v instanceof Boolean || v instanceof Number || v instanceof String
          || v instanceof Enum || v instanceof WriteBufferWaterMark || v instanceof ByteBufAllocator;
      byName.put(e.getKey().name(), byValue ? (v instanceof WriteBufferWaterMark ? v.toString() : v) : v.getClass());
    }
    return byName;
  }
}
