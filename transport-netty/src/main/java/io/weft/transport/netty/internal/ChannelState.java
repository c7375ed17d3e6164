package io.weft.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.netty.util.concurrent.Promise;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Tls;
import java.io.IOException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ConnectionState} of one Netty channel: what Netty adds to the shared state is the
 * channel's inbound handler ({@link #newHandler()}, last in the pipeline, after the
 * {@link SslHandler} when there is one), the {@code autoRead} switch that suspends reading, the
 * {@link SslHandler}'s handshake, the write of a flush, and Netty's futures.
 *
 * <p><b>Lifecycle.</b> Created before the connect, its handler added to the channel's pipeline by
 * the connect (which binds this state to the channel), fed by the event loop until the channel
 * closes, and closed once by its transport or connector. Each inbound {@link ByteBuf} (direct:
 * the event loop's own read buffer on a plaintext channel with this handler alone, see
 * {@link LingerlessSocketChannel}; otherwise pooled) is copied into the buffer and released at
 * once, on the event loop, before anything else runs: the loop reads its next message into the
 * same buffer.
 *
 * <p><b>Read suspension.</b> {@code autoRead} is off above the inbound limit. The event loop
 * stops reading in the same turn ({@code autoRead} is checked between the reads of one turn); a
 * resume asked for by the reader just before (a read that Netty has already queued for the loop)
 * can still add one read. Netty's {@code setAutoRead} is atomic and hands the change to the event
 * loop from any thread, so unlike MINA's read suspension it is never lost and needs no
 * re-assertion.
 *
 * <p><b>End of the channel.</b> Netty closes the channel when a read returns -1 (half-closure is
 * off), so a peer's half-close arrives as {@code channelInactive}: the reader sees end of stream
 * after what is buffered, a send fails at once with {@link io.weft.transport.PeerClosedException},
 * and every wait (input, a write, a connect, a handshake) is woken by the close, whoever closes.
 */
public final class ChannelState extends ConnectionState<Future<?>, ByteBuf> {
  private static final Logger LOG = LoggerFactory.getLogger(ChannelState.class);

  /**
   * A close that the pipeline failed (a handler's close threw; Netty fails the close's promise
   * with it and leaves the channel open) is made underneath the pipeline, as its head handler
   * would have: else the channel stays open and its close is never reported (see ReportsClose),
   * so its session keeps its place. Runs on the channel's event loop, where Netty notifies it.
   */
  private static final ChannelFutureListener CLOSE_UNDERNEATH_IF_FAILED = closed -> {
    if (!closed.isSuccess()) {
      Channel ch = closed.channel();
      LOG.debug("channel {}: its pipeline failed the close; closing it underneath", ch, closed.cause());
      ch.unsafe().close(ch.voidPromise());
    }
  };

  /** For the report; not a constant, so that its literal is made as the class loads, not when the heap is full. */
  private static final String BUFFERING;

  static {
    BUFFERING = "a Netty event loop buffering input";
  }

  /** The name of the TLS handler in a channel's pipeline. */
  public static final String TLS_HANDLER = "weft-tls";

  private volatile Channel channel;
  /** The channel while its close is under way, and after a close that threw: closed again by the next. */
  private volatile Channel unclosed;
  /** The channel's close future, kept once attached: {@link #channel} is forgotten at the close. */
  private volatile ChannelFuture closeFuture;

  /** Done once the TLS handshake has ended, either way; null while none has started. */
  private volatile Future<?> handshake;
  /** Why the handshake failed, as Netty's handler reported it. */
  private volatile Throwable handshakeCause;
  /** Why a loop refuses work (it died), or null: from the connector (see {@link #closeIfLoopGone}). */
  private final Function<EventExecutor, String> loopGone;

  /**
   * A state whose loop's refusals are not told apart: {@link #closeIfLoopGone} never closes it.
   *
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  public ChannelState(int inboundLimit) {
    this(inboundLimit, loop -> null);
  }

  /**
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @param loopGone why an event loop that refused this state's work did (it died, in the words
   *     every other session of the connector hears), or null when that is not the reason (the
   *     connector is closing: its close has closed the state with words of its own)
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  public ChannelState(int inboundLimit, Function<EventExecutor, String> loopGone) {
    super(inboundLimit, false);
    this.loopGone = loopGone;
  }

  /**
   * Closes this state with the words of its channel's event loop's death when {@code cause} is
   * that loop's refusal of work ({@code RejectedExecutionException: event executor terminated},
   * from a registration, a connect, a write, a task handed to it): a loop that died refuses work
   * from the moment Netty begins its shutdown, before its connector hears of the death and
   * closes its sessions. So the operation that met the refusal reports
   * {@link TransportClosedException} naming the loop, as the operations that meet the death a
   * moment later do (docs/errors.md), not Netty's exception. Called before the operation's
   * failure is reported, so that the report finds the state closed.
   *
   * @param ch the channel whose loop refused, or null
   * @param cause the refusal, or anything else (then nothing is done)
   * @return true if this state is closed with the loop's words (or was closed already)
   */
  public boolean closeIfLoopGone(Channel ch, Throwable cause) {
    if (!(cause instanceof RejectedExecutionException) || ch == null) {
      return false;
    }
    EventExecutor loop;
    try {
      loop = ch.eventLoop();
    } catch (IllegalStateException e) {
      // Never handed to a loop.
      return false;
    }
    String why = loopGone.apply(loop);
    if (why == null) {
      return false;
    }
    close(why);
    return true;
  }

  /**
   * Binds this state to its channel, before any of the channel's I/O events. A state already
   * closed closes the channel at once: the connect was abandoned.
   */
  public void attach(Channel channel) {
    this.closeFuture = channel.closeFuture();
    this.channel = channel;
    if (isClosed()) {
      this.channel = null;
      channel.close();
    }
  }

  /**
   * Netty's close future is done once the channel's socket is closed: inside the close on the
   * channel's event loop, in the loop's next task for a close from another thread.
   */
  @Override
  protected void watchDisconnect() {
    ChannelFuture f = closeFuture;
    if (f == null) {
      disconnected();
    } else {
      f.addListener((ChannelFutureListener) done -> disconnected());
    }
  }

  /** The channel, or null before the connect has made one and after it is closed. */
  public Channel channel() {
    return channel;
  }

  // ---- The event loop's side.

  /** The channel's inbound handler that feeds this state; one per connect. */
  public ChannelHandler newHandler() {
    return new Handler();
  }

  private final class Handler extends ChannelInboundHandlerAdapter {
    /**
     * False, as Netty works out for a handler class without {@code @Sharable}, but without its
     * look-up: Netty asks each handler added to a pipeline, through a per-thread map of handler
     * classes, once per connect here. One handler per connect, never shared: a second pipeline
     * it is added to refuses it, as before. The class must not carry {@code @Sharable} while this
     * answers false (ChannelStateHandlerTest checks it).
     */
    @Override
    public boolean isSharable() {
      return false;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
      attach(ctx.channel());
    }

    /**
     * Names the channel's event loop as the thread that delivers its input (see
     * {@link io.weft.transport.spi.InboundState#inputDeliveredOnCurrentThread()}): a session
     * resumed there confines the state to it at its first poll. A plaintext channel
     * (no handshake begun: implicit TLS begins one before the channel is active) has its inbound
     * buffer watch the start of the stream for a TLS alert: a TLS server answering plaintext.
     */
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      // The channel's event loop delivers all its input.
      if (ctx.executor().inEventLoop()) {
        inputDeliveredOnCurrentThread();
      }
      lock.lock();
      try {
        if (handshake == null) {
          inbound.expectPlaintextFrom(ctx.channel().remoteAddress());
        }
      } finally {
        lock.unlock();
      }
      ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (!(msg instanceof ByteBuf)) {
        ctx.fireChannelRead(msg);
        return;
      }
      ByteBuf buf = (ByteBuf) msg;
      Runnable toRun;
      try {
        toRun = onInput(buf);
      } catch (OutOfMemoryError e) {
        buf.release();
        // Growing this session's buffer failed. Fail the session, whose buffer then goes, rather
        // than let the error reach the event loop, which serves every other session too.
        try {
          HeapExhaustion.report(e, BUFFERING);
          LOG.debug("channel {}: out of memory buffering input", ctx.channel(), e);
          onFailure(new IOException("out of memory buffering input: " + e.getMessage(), e));
        } catch (OutOfMemoryError noRoom) {
          // No room to say why: the close ends the session's waits all the same.
        } finally {
          ctx.close();
        }
        return;
      } catch (RuntimeException | Error e) {
        // Given back all the same: kept, the event loop's own read buffer would never serve a read again.
        buf.release();
        throw e;
      }
      // Released before the wake-up, which may run the session right here: its next write can
      // then take the same pooled buffer back from this thread's cache, and the loop's own read
      // buffer is free again for whatever reads this thread makes next.
      buf.release();
      runWakeup(toRun);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      onClosed();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("channel {} failed", ctx.channel(), cause);
      onFailure(cause);
      ctx.close();
    }
  }

  /**
   * Copies the message's bytes straight into the session's buffer: one copy, from Netty's direct
   * buffer into the buffer's own array, with no array in between and no NIO view of the direct
   * buffer (one or two new {@code ByteBuffer}s per read).
   */
  @Override
  protected IOException append(ByteBuf message) {
    int length = message.readableBytes();
    int at = inbound.reserve(length);
    message.getBytes(message.readerIndex(), inbound.array(), at, length);
    inbound.commit(length);
    return null;
  }

  // ---- TLS.

  /**
   * The TLS handler of a connect with implicit TLS, for the connect's pipeline (ahead of this
   * state): the handshake starts when the channel becomes active.
   */
  public SslHandler implicitTls(TlsSettings settings, String host, int port) {
    SslHandler handler = newTlsHandler(settings, host, port);
    watchHandshake(handler, null);
    return handler;
  }

  /**
   * {@inheritDoc} On the event loop, it adds the TLS handler to the live channel; plaintext that
   * reaches this state between the call and the handler's arrival is refused too (the future
   * then fails with the injection).
   */
  @Override
  public Future<?> startTls(TlsSettings settings, String host, int port, String what) throws IOException {
    refuseInjectedPlaintext();
    checkWritable("STARTTLS");
    try {
      return beginTls(settings, host, port);
    } catch (IllegalArgumentException e) {
      throw Tls.handshakeFailed(what, e);
    }
  }

  private Future<?> beginTls(TlsSettings settings, String host, int port) throws IOException {
    Channel ch;
    Promise<Void> done;
    lock.lock();
    try {
      checkOpen();
      if (handshake != null) {
        throw new IllegalStateException("this transport already speaks TLS");
      }
      // From here the stream is TLS: buffered bytes, whatever they look like, are an injection.
      inbound.stopExpectingPlaintext();
      checkNothingBuffered();
      ch = channel;
      if (ch == null) {
        throw new TransportClosedException("transport is closed");
      }
      done = ch.eventLoop().newPromise();
      handshake = done;
    } finally {
      lock.unlock();
    }
    SslHandler handler;
    try {
      handler = newTlsHandler(settings, host, port);
    } catch (RuntimeException e) {
      done.tryFailure(e);
      throw e;
    }
    try {
      ch.eventLoop().execute(() -> addTlsHandler(ch, handler, done));
    } catch (RejectedExecutionException e) {
      // A loop that died: the handshake's wait reads the state closed with its words. A live loop's
      // refusal (a bounded task queue that is full) is no closed peer: thrown as it is, as before.
      boolean loopGone = closeIfLoopGone(ch, e);
      done.tryFailure(e);
      if (!loopGone) {
        throw e;
      }
    }
    return done;
  }

  /** On the event loop: the TLS handler added to the live channel, unless plaintext came first. */
  private void addTlsHandler(Channel ch, SslHandler handler, Promise<Void> done) {
    StartTlsInjectionException injected = null;
    lock.lock();
    try {
      checkNothingBuffered();
    } catch (StartTlsInjectionException e) {
      if (failure == null) {
        failure = e;
      }
      injected = e;
    } finally {
      lock.unlock();
    }
    if (injected != null) {
      // Outside the lock: the promise's listeners wake the session, which may run right here.
      done.tryFailure(injected);
      return;
    }
    watchHandshake(handler, done);
    ch.pipeline().addFirst(TLS_HANDLER, handler);
  }

  private static SslHandler newTlsHandler(TlsSettings settings, String host, int port) {
    SslHandler handler = new SslHandler(Tls.newEngine(settings, host, port));
    // The transport's own wait bounds the handshake; Netty's default 10 s must not cut it short.
    handler.setHandshakeTimeoutMillis(0L);
    return handler;
  }

  /**
   * Records the handshake's outcome, then completes {@code done} (a promise of its own for
   * implicit TLS, made here): whoever waits on the promise sees the session or the cause already
   * recorded. Waiting on the handler's own future would not do: it reads as done before its
   * listeners have run, and a waiter that looked in between found neither.
   */
  private void watchHandshake(SslHandler handler, Promise<Void> done) {
    Promise<Void> outcome = done;
    if (outcome == null) {
      // Completed on the event loop by the listener below; a waiter's own listener runs there too.
      outcome = ImmediateEventExecutor.INSTANCE.newPromise();
      handshake = outcome;
    }
    Promise<Void> settled = outcome;
    handler.handshakeFuture().addListener((GenericFutureListener<Future<Object>>) result -> {
      if (result.isSuccess()) {
        tlsSession = handler.engine().getSession();
        settled.trySuccess(null);
      } else {
        handshakeCause = result.cause();
        settled.tryFailure(result.cause());
      }
    });
  }

  @Override
  public Future<?> handshake() {
    return handshake;
  }

  @Override
  protected Throwable handshakeFailure() {
    Throwable cause = handshakeCause;
    return cause instanceof ClosedChannelException ? null : cause;
  }

  // ---- The writer's side.

  /**
   * Sends the first {@code length} bytes of {@code src}. On the channel's own event loop, on a
   * plaintext channel (no TLS handler: only this state's handler in the pipeline) with nothing
   * queued in Netty's outbound buffer, they go straight to the socket
   * ({@link LingerlessSocketChannel#writeNow}), as a session resumed on its loop writes its
   * request (MINA's connector does the same): null when all of them went, nothing to wait for.
   * Otherwise, or for the bytes the socket had no room for, in one pooled direct buffer that is
   * written and flushed through the pipeline: on the event loop the bytes go to the socket before
   * this returns, and the future is then usually done already; from any other thread the write
   * is handed to the event loop. Netty releases the buffer once written or failed.
   *
   * @throws TransportClosedException if the channel is gone
   */
  @Override
  public ChannelFuture send(byte[] src, int length) throws IOException {
    Channel ch = channel;
    if (ch == null) {
      checkWritable("flush");
      throw new TransportClosedException("transport is closed");
    }
    int now = 0;
    // The thread first: a send off the loop (SYNC, THREADS, virtual threads, resumeOnWorkers)
    // goes through Netty without reading the pipeline's first and last handlers.
    if (handshake == null && ch instanceof LingerlessSocketChannel && ch.isRegistered() && ch.eventLoop().inEventLoop()
        && onlyThisStatesHandler(ch)) {
      try {
        now = ((LingerlessSocketChannel) ch).writeNow(src, 0, length);
      } catch (IOException e) {
        // As Netty's own flush meets a failed write: the channel closes (its end reported in
        // a later task of the loop), and the write's future fails with the socket's exception.
        ch.unsafe().close(ch.voidPromise());
        return ch.newFailedFuture(e);
      }
      if (now == length) {
        return null;
      }
    }
    ByteBuf buf = ch.alloc().directBuffer(length - now, length - now);
    buf.writeBytes(src, now, length - now);
    return ch.writeAndFlush(buf);
  }

  /**
   * True when this state's handler is the channel's only one: no outbound handler (TLS) for a
   * write to pass by, and no handler but this state's to see (or keep) a read's buffer.
   */
  static boolean onlyThisStatesHandler(Channel ch) {
    ChannelPipeline pipeline = ch.pipeline();
    return pipeline.first() instanceof Handler && pipeline.last() instanceof Handler;
  }

  /**
   * Records the failure of a write, which Netty reports on the write's future only (never to
   * the handler), as the failure that ended the channel, unless one is recorded already. A
   * plain {@code IOException} from the socket's write ("Connection reset by peer", "Broken
   * pipe") is recorded as the {@link SocketException} a plain socket's write throws.
   */
  @Override
  protected void writeFailed(Throwable cause) {
    if (cause instanceof RejectedExecutionException) {
      // A write handed to a loop that died: reported as the loop's death (closeIfLoopGone).
      Channel ch = channel;
      closeIfLoopGone(ch != null ? ch : unclosed, cause);
      return;
    }
    if (!(cause instanceof IOException) || cause instanceof ClosedChannelException) {
      return;
    }
    IOException e = (IOException) cause;
    if (e.getClass() == IOException.class) {
      SocketException socket = new SocketException(e.getMessage());
      socket.initCause(e);
      e = socket;
    }
    lock.lock();
    try {
      if (failure == null && !isClosed()) {
        failure = e;
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * {@inheritDoc} Netty fails a write with a {@link ClosedChannelException} as it closes the
   * channel after the peer's end of stream, before it reports the close itself: that is the
   * peer's close.
   */
  @Override
  protected boolean isWritten(Future<?> written) {
    return written.isSuccess();
  }

  @Override
  protected Throwable failureOf(Future<?> written) {
    return written.cause();
  }

  @Override
  protected boolean isClosedConnection(Throwable writeFailure) {
    return writeFailure instanceof ClosedChannelException;
  }

  // ---- The hooks.

  /** @throws io.weft.transport.BlockingOperationException on an event-loop thread */
  @Override
  public void checkMayBlock(String what) {
    EventLoops.checkMayBlock(what);
  }

  @Override
  public void checkMaySuspend(String what) {
    EventLoops.checkMaySuspend(what);
  }

  @Override
  public boolean isDone(Future<?> future) {
    return future.isDone();
  }

  @Override
  public void wakeWhenDone(Future<?> future, Runnable wake) {
    @SuppressWarnings({"unchecked", "rawtypes"})
    Future<Object> f = (Future) future;
    f.addListener((GenericFutureListener<Future<Object>>) done -> wake.run());
    // Netty notifies a listener added to a done future off its event loop later, on the loop:
    // run the wake-up inline instead, so that await returns without suspending.
    if (future.isDone()) {
      wake.run();
    }
  }

  @Override
  protected void disconnect() {
    Channel ch = channel;
    channel = null;
    if (ch == null) {
      // The close before this one threw (the heap ran out in Netty's close, say): again.
      ch = unclosed;
      if (ch == null) {
        return;
      }
    }
    unclosed = ch;
    ch.close().addListener(CLOSE_UNDERNEATH_IF_FAILED);
    unclosed = null;
  }

  @Override
  protected boolean suspendReading(boolean suspend) {
    Channel ch = channel;
    if (ch == null) {
      return false;
    }
    try {
      ch.config().setAutoRead(!suspend);
    } catch (RejectedExecutionException e) {
      // A resume hands a read to the loop, which refuses it if it died: the state closes with
      // its words (a later poll reads them), or the refusal is thrown as before.
      if (!closeIfLoopGone(ch, e)) {
        throw e;
      }
      return false;
    }
    return true;
  }

  @Override
  public long pendingWriteBytes() {
    Channel ch = channel;
    ChannelOutboundBuffer out = ch == null ? null : ch.unsafe().outboundBuffer();
    return out == null ? 0L : out.totalPendingWriteBytes();
  }

  @Override
  public boolean isReadSuspended() {
    Channel ch = channel;
    return ch != null && !ch.config().isAutoRead();
  }

  @Override
  public String toString() {
    String because = closedBecause();
    return "ChannelState{channel=" + channel + (because == null ? "" : ", closed: " + because) + "}";
  }
}
