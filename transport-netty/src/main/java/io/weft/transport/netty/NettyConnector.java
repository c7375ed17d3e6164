package io.weft.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelPromise;
import io.netty.channel.DefaultSelectStrategyFactory;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannelConfig;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.SystemPropertyUtil;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.ConnectorBuilder;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Ticker;
import io.weft.transport.spi.Tls;
import io.weft.transport.netty.internal.ChannelState;
import io.weft.transport.netty.internal.EventLoops;
import io.weft.transport.netty.internal.LingerlessSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.spi.SelectorProvider;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens {@link NettyTransport}s: TCP connections ({@link InetSocketAddress}) over Netty's NIO
 * transport, served by one {@link NioEventLoopGroup} that this connector owns. One connector
 * serves any number of sessions at once.
 *
 * <p>The event-loop threads are daemon threads, so a forgotten connector does not keep the JVM
 * alive. {@link #close()} closes every transport still open, shuts the event-loop group down
 * gracefully and waits, for a bounded time, until its threads have ended; called on an event-loop
 * thread it cannot wait for itself, and only starts the shutdown.
 *
 * <p>Built with {@link Builder#tls(TlsSettings)}, every connect also does a TLS handshake through
 * Netty's {@code SslHandler} before it returns (implicit TLS).
 *
 * <pre>{@code
 * try (NettyConnector connector = NettyConnector.tcp()) {
 *   Transport transport = connector.connect(address, Timeout.of(5, SECONDS));
 *   ...
 * }
 * }</pre>
 */
public final class NettyConnector implements Connector, Clocked {
  private static final Logger LOG = LoggerFactory.getLogger(NettyConnector.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final long SHUTDOWN_WAIT_SECONDS = 10L;
  /** Netty's connect failures: the JDK's exception, copied with the address in its message. */
  private static final String ANNOTATED = "io.netty.channel.AbstractChannel$Annotated";
  /** The reason when the words do not fit; not a constant, so that its literal is made as the class loads. */
  private static final String LOOP_DIED;
  private static final int LOOP_DIED_CLOSE_TRIES = 200;
  private static final long LOOP_DIED_CLOSE_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  /** The provider of the event loops' selectors and of every channel (Netty's default too). */
  private static final SelectorProvider PROVIDER = SelectorProvider.provider();
  /**
   * Whether Netty's {@code ChannelInitializerExtension}s are on ({@code
   * -Dio.netty.bootstrap.extensions=serviceload}, read once, as Netty reads it): then every
   * connect goes through {@code Bootstrap}, whose {@code init} hands each channel to them.
   */
  private static final boolean BOOTSTRAP_EXTENSIONS =
      "serviceload".equalsIgnoreCase(SystemPropertyUtil.get("io.netty.bootstrap.extensions"));

  static {
    LOOP_DIED = "a Netty event loop died";
  }

  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final int inboundLimit;
  private final int threads;
  private final Core core;
  /** Why this connector refuses to connect (one of its event loops died), or null. */
  private volatile String broken;
  /** The event-loop threads made for the group (one per loop that started), to name a dead loop. */
  private final List<Thread> loopThreads = new CopyOnWriteArrayList<>();

  private NettyConnector(TlsSettings tls, int inboundLimit, int threads, String kind, Ticker ticker) {
    this(tls, inboundLimit, threads, kind, DefaultSelectStrategyFactory.INSTANCE, ticker);
  }

  /**
   * With the event loops' select strategy: Netty's default, or for a test one that throws an
   * error inside the loop itself (which Netty does not catch there), as the heap's end can.
   */
  NettyConnector(TlsSettings tls, int inboundLimit, int threads, String kind, SelectStrategyFactory selectStrategy) {
    this(tls, inboundLimit, threads, kind, selectStrategy, Ticker.system());
  }

  private NettyConnector(TlsSettings tls, int inboundLimit, int threads, String kind, SelectStrategyFactory selectStrategy,
      Ticker ticker) {
    this.inboundLimit = inboundLimit;
    this.core = new Core(tls, ticker);
    this.threads = threads;
    ThreadFactory loops = EventLoops.threads("weft-netty-" + kind + IDS.incrementAndGet() + "-", this::loopEnded);
    this.group = new NioEventLoopGroup(threads, (ThreadFactory) runnable -> {
      Thread thread = loops.newThread(runnable);
      loopThreads.add(thread);
      return thread;
    }, PROVIDER, selectStrategy);
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
        // Weft's Timeout bounds the connect; 0 turns Netty's own connect timeout off.
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 0);
  }

  /**
   * A TCP connector with default options.
   *
   * @return a new connector, which the caller closes
   */
  public static NettyConnector tcp() {
    return builder().tcp();
  }

  /**
   * Options for a connector.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects to {@code remote}, blocking until connected (and, with TLS, until the handshake is
   * done).
   *
   * @throws IllegalArgumentException if {@code remote} is not an {@link InetSocketAddress}
   * @throws io.weft.transport.BlockingOperationException if called on an event-loop thread
   */
  @Override
  public NettyTransport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return core.connect(remote, timeout, (state, t, start, forget, address) ->
        new NettyTransport(state, t, start, forget, address, core.blockingWaits()));
  }

  /**
   * One of this connector's event loops ended. At the connector's close that is its shutdown;
   * before, the loop died of an error (an {@code OutOfMemoryError} say, which Netty catches, logs
   * and ends the loop for), and the channels it served would never hear from it again, not even
   * their close: fail every session now, as a MINA connector does when one of its threads dies,
   * so that no wait outlives it.
   */
  private void loopEnded(Thread thread) {
    if (core == null || core.isClosed()) {
      return;
    }
    // Broken first, with nothing allocated: it opens no new connection on a group with a dead loop.
    broken = LOOP_DIED;
    String why = LOOP_DIED;
    try {
      why = loopDied(thread);
      broken = why;
    } catch (OutOfMemoryError e) {
      // The constant says enough.
    }
    // A loop that died of the heap's end dies in a full heap. closeAll goes on past a channel
    // whose close throws (that channel is still taken out of the live set and reported
    // disconnected, so its session hears; it is not closed again here, nor by the connector's
    // close, which no longer tracks it), and throws the first error at its end; what is tried
    // again here, a bounded number of times while the runs' aborts give the heap back, is a
    // closeAll that found no room before it reached any channel (its copy of the live set), or
    // that the error stopped part of the way (taking a channel out, or reporting it): the
    // channels it had not reached are still live, and the next try closes them.
    for (int tries = 1;; tries++) {
      try {
        core.closeAll(why);
        break;
      } catch (OutOfMemoryError e) {
        if (tries >= LOOP_DIED_CLOSE_TRIES) {
          throw e;
        }
        LockSupport.parkNanos(this, LOOP_DIED_CLOSE_PAUSE_NANOS);
      }
    }
    try {
      LOG.error("{}; failed the connector's sessions", why);
    } catch (OutOfMemoryError e) {
      // No room to log it: the sessions have heard.
    }
  }

  /** The words of a loop's death, as its connector's sessions and connects hear them. */
  private static String loopDied(Thread thread) {
    return "Netty event loop " + thread.getName() + " died";
  }

  /**
   * Why {@code loop}, one of this connector's, refuses work ({@code RejectedExecutionException:
   * event executor terminated}, from a registration, a task, a write handed to it): it died, and
   * the words are those of {@link #loopEnded}, which is told only once the loop has ended, after
   * Netty has begun refusing its work; the connector is marked broken now, with the same words.
   * Null while the connector is closed (its close shut the loop down, and closed its sessions with
   * words of its own first) or the loop is not shutting down.
   */
  private String loopGone(EventExecutor loop) {
    if (core.isClosed() || !loop.isShuttingDown()) {
      return null;
    }
    String why = LOOP_DIED;
    for (Thread thread : loopThreads) {
      if (loop.inEventLoop(thread)) {
        why = loopDied(thread);
        break;
      }
    }
    if (broken == null) {
      broken = why;
    }
    return why;
  }

  /** The steps of a connect and the live set, for the continuation connector, which waits its own way. */
  Core core() {
    return core;
  }

  /**
   * The clock of this connector's connects, waits and session deadlines, set by
   * {@link io.weft.transport.spi.ConnectorBuilder#ticker}.
   *
   * @return the clock
   */
  @Override
  public Ticker ticker() {
    return core.blockingWaits().ticker();
  }

  /** The connector skeleton, filled in with Netty's bootstrap, its futures and its shutdown. */
  final class Core extends ConnectorCore<Future<?>, ChannelState> {
    Core(TlsSettings tls, Ticker ticker) {
      super(tls, ticker);
    }

    @Override
    protected String broken() {
      return broken;
    }

    @Override
    protected void checkAddress(SocketAddress remote) {
      if (!(remote instanceof InetSocketAddress)) {
        throw new IllegalArgumentException("not an InetSocketAddress: " + remote);
      }
    }

    @Override
    protected ChannelState newState() {
      return new ChannelState(inboundLimit, NettyConnector.this::loopGone);
    }

    /**
     * Issues the connect; {@code state} is in the channel's pipeline before any event, and with
     * TLS the {@code SslHandler} ahead of it, to start the handshake when the channel is active.
     *
     * <p>A plaintext connect to a resolved address is made as Netty's {@code Bootstrap} makes
     * it, minus what a connect per session pays for nothing here: the clone of the bootstrap and
     * its option maps, the channel made by reflection, a second {@code setsockopt(TCP_NODELAY)}
     * (the channel's config sets it as the channel is made), the resolver's look-up, Netty's
     * {@code getsockopt(SO_LINGER)} at the close (see {@link LingerlessSocketChannel}), and the
     * connect handed to the event loop as a task of its own when it is issued on that loop
     * already (a session that reconnects where its last connection ended), and the wait for the
     * selector's {@code OP_CONNECT} when the handshake was made inside the {@code connect} call, as
     * to a loopback listener (see {@code LingerlessSocketChannel.doConnect}). The pipeline is
     * complete before the channel is registered, so issuing the connect at once skips nothing
     * a handler's {@code channelRegistered} would add. With TLS, to an unresolved address, and
     * when the JDK cannot open a channel (no file descriptors left, say), the connect goes
     * through {@code Bootstrap}, so that those resolve, set up and fail exactly as before. So does
     * every connect when {@code io.netty.bootstrap.extensions} is {@code serviceload} (read once,
     * as the class loads): Netty's {@code ChannelInitializerExtension}s are called from
     * {@code Bootstrap.init} only ({@code ChannelInitializerExtensions} is not public), and they
     * see every channel of the connector, not the TLS and unresolved ones alone.
     */
    @Override
    public Future<?> startConnect(SocketAddress remote, ChannelState state) {
      InetSocketAddress inet = (InetSocketAddress) remote;
      if (inet.isUnresolved() && isSpecialInvalid(inet.getHostString())) {
        // RFC 6761, 6.4: a name under "invalid" never resolves, and resolvers should say so at
        // once; the JDK's asks the name service (a DNS query). Failed here as a look-up would.
        return ImmediateEventExecutor.INSTANCE.newFailedFuture(new UnknownHostException(inet.getHostString()));
      }
      if (BOOTSTRAP_EXTENSIONS || tls().isPresent() || inet.isUnresolved()) {
        return bootstrapConnect(remote, state);
      }
      NioSocketChannel channel;
      try {
        channel = new LingerlessSocketChannel(PROVIDER);
      } catch (Throwable e) {
        return bootstrapConnect(remote, state);
      }
      try {
        SocketChannelConfig config = channel.config();
        if (!PlatformDependent.canEnableTcpNoDelayByDefault()) {
          config.setTcpNoDelay(true);
        }
        config.setAllocator(PooledByteBufAllocator.DEFAULT);
        // Weft's Timeout bounds the connect; 0 turns Netty's own connect timeout off.
        config.setConnectTimeoutMillis(0);
        channel.pipeline().addLast(state.newHandler());
      } catch (Throwable e) {
        // As Bootstrap's set-up of a channel that failed: closed, and the connect failed.
        channel.unsafe().closeForcibly();
        return new DefaultChannelPromise(channel, GlobalEventExecutor.INSTANCE).setFailure(e);
      }
      EventLoop here = runningLoop();
      ChannelFuture registered = here != null ? here.register(channel) : group.register(channel);
      ChannelPromise connected = channel.newPromise();
      // As Bootstrap (4.1.138's doResolveAndConnect0): a connect that fails closes its channel,
      // also where Netty does not (a promise cancelled before the loop runs the connect).
      connected.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
      if (registered.isDone()) {
        // Registered inline (on the calling loop: register0 has ended, channelRegistered
        // included), or refused at once (a loop that died or is shutting down).
        connectRegistered(registered, remote, state, connected);
      } else {
        registered.addListener((ChannelFutureListener) done -> connectWhenRegistered(done, remote, state, connected));
      }
      return connected;
    }

    /**
     * The registration's listener: it runs inside Netty's {@code register0}, before the pipeline
     * hears {@code channelRegistered} (and before register0's own {@code channelActive} for an
     * active channel), so a connect issued here could complete, where a connect can complete at
     * once, before them, and fire {@code channelActive} twice. As {@code Bootstrap.doConnect}
     * does, the connect is handed to the channel's loop as a task, which runs after register0;
     * a failed or cancelled registration is dealt with at once.
     */
    private void connectWhenRegistered(ChannelFuture registered, SocketAddress remote, ChannelState state,
        ChannelPromise connected) {
      if (!registered.isSuccess()) {
        connectRegistered(registered, remote, state, connected);
        return;
      }
      try {
        registered.channel().eventLoop().execute(() -> connectRegistered(registered, remote, state, connected));
      } catch (RejectedExecutionException e) {
        registered.channel().unsafe().closeForcibly();
        // The state closed with the loop's death first, so that the connect reports that.
        state.closeIfLoopGone(registered.channel(), e);
        connected.tryFailure(e);
      }
    }

    /**
     * The event loop of this connector that the calling thread runs, or null: a connect made
     * there (a session that reconnects on the loop its last connection ended on) is registered
     * with that same loop, so the connect, its finish and the session's resumes stay on one
     * thread, as MINA's processor keeps a connect it runs; not handed to the group's next loop,
     * which with two loops or more took a task and a wake-up of another loop for one connect in
     * two. Connects made on any other thread are spread over the group as before.
     */
    private EventLoop runningLoop() {
      if (!EventLoops.inEventLoop()) {
        return null;
      }
      for (EventExecutor loop : group) {
        if (loop.inEventLoop()) {
          return (EventLoop) loop;
        }
      }
      return null;
    }

    /**
     * The connect of a channel once its registration is done: issued at once (on its event loop,
     * where a registration ends; Netty hands a connect from another thread to the loop), or,
     * if the registration failed (the group shut down), the channel closed and the connect
     * failed with the registration's cause, as {@code Bootstrap} does. A registration its loop
     * refused because the loop died closes {@code state} with the words of that death before the
     * connect fails, so that the connect ends with {@code TransportClosedException} naming the
     * loop, as one under way when the loop dies does (docs/errors.md), not with Netty's
     * {@code RejectedExecutionException}.
     */
    private void connectRegistered(ChannelFuture registered, SocketAddress remote, ChannelState state,
        ChannelPromise connected) {
      Channel channel = registered.channel();
      Throwable cause = registered.cause();
      if (cause != null || connected.isCancelled()) {
        if (channel.isRegistered()) {
          channel.close();
        } else {
          channel.unsafe().closeForcibly();
        }
        if (cause != null) {
          state.closeIfLoopGone(channel, cause);
          connected.tryFailure(cause);
        }
        return;
      }
      channel.connect(remote, connected);
    }

    /** Whether {@code host} is "invalid" or a name under it (RFC 6761: it never resolves). */
    private static boolean isSpecialInvalid(String host) {
      String h = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
      return h.equalsIgnoreCase("invalid") || h.regionMatches(true, h.length() - 8, ".invalid", 0, 8);
    }

    /** The connect through a clone of Netty's bootstrap: for an unresolved address, which it resolves. */
    private Future<?> bootstrapConnect(SocketAddress remote, ChannelState state) {
      Bootstrap b = bootstrap.clone();
      TlsSettings tls = tls().orElse(null);
      if (tls == null) {
        b.handler(state.newHandler());
      } else {
        String host = Tls.hostName(tls, remote);
        int port = Tls.port(remote);
        b.handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast(ChannelState.TLS_HANDLER, state.implicitTls(tls, host, port));
            ch.pipeline().addLast(state.newHandler());
          }
        });
      }
      ChannelFuture connected = b.connect(remote);
      // Bootstrap registers from the calling thread: a loop that refused it failed the future
      // already (a registration under way that a dying loop drops is ended by the state's close).
      if (connected.isDone()) {
        state.closeIfLoopGone(connected.channel(), connected.cause());
      }
      return connected;
    }

    @Override
    protected boolean isConnected(Future<?> future) {
      return future.isSuccess();
    }

    @Override
    protected Throwable connectCause(Future<?> future) {
      Throwable cause = future.cause();
      if (cause != null && cause.getClass().getName().startsWith(ANNOTATED) && cause.getCause() != null) {
        // Netty's copy of the JDK's exception with the address added: report the JDK's own kind.
        cause = cause.getCause();
      }
      return cause;
    }

    @Override
    public void cancelConnect(Future<?> future) {
      future.cancel(false);
    }

    @Override
    protected void shutdown() {
      io.netty.util.concurrent.Future<?> terminated =
          group.shutdownGracefully(0L, SHUTDOWN_WAIT_SECONDS, TimeUnit.SECONDS);
      if (EventLoops.inEventLoop()) {
        // Waiting here could be waiting for this very thread to end.
        return;
      }
      if (!terminated.awaitUninterruptibly(SHUTDOWN_WAIT_SECONDS + 1L, TimeUnit.SECONDS)) {
        LOG.warn("Netty event loops still running {} s after the connector was closed", SHUTDOWN_WAIT_SECONDS);
      }
    }
  }

  /**
   * The TLS settings every connect uses.
   *
   * @return the settings, or empty for plaintext
   */
  public Optional<TlsSettings> tls() {
    return core.tls();
  }

  /**
   * How many transports this connector opened that are still open (or connecting).
   *
   * @return the number of open transports
   */
  public int openCount() {
    return core.openCount();
  }

  /**
   * The number of event-loop threads this connector runs.
   *
   * @return the size of its event-loop group
   */
  public int eventLoopThreads() {
    return threads;
  }

  /**
   * Closes every transport still open, shuts the event-loop group down and waits (up to 10 s)
   * for its threads to end; on an event-loop thread it does not wait. A second call does nothing.
   */
  @Override
  public void close() {
    core.close();
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if the connector is closed
   */
  public boolean isClosed() {
    return core.isClosed();
  }

  @Override
  public String toString() {
    return "NettyConnector{tcp, threads=" + threads + ", open=" + core.openCount() + (core.isClosed() ? ", closed" : "")
        + "}";
  }

  /**
   * Options for a {@link NettyConnector}: those of every connector ({@link ConnectorBuilder#tls},
   * {@link ConnectorBuilder#inboundBufferLimit}) and Netty's event-loop count; build with
   * {@link #tcp()}.
   */
  public static final class Builder extends ConnectorBuilder<Builder> {
    Builder() {}

    /**
     * Event-loop threads; default (0) one per available processor for this blocking connector:
     * its sessions run on threads of their own, and the event loops only move their bytes.
     *
     * @param count the number of event-loop threads; 0 for the default
     * @return this builder
     * @throws IllegalArgumentException if {@code count < 0}
     */
    public Builder eventLoopThreads(int count) {
      return ioThreads(count);
    }

    /**
     * Builds a TCP connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public NettyConnector tcp() {
      return build(Runtime.getRuntime().availableProcessors(), "");
    }

    /** The connector with {@code defaultThreads} event loops unless told otherwise, its threads named by {@code kind}. */
    NettyConnector build(int defaultThreads, String kind) {
      return new NettyConnector(tlsSettings(), inboundLimitBytes(), ioThreadsOr(defaultThreads), kind, tickerSetting());
    }
  }
}
