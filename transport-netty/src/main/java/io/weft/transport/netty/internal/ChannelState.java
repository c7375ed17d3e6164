package io.weft.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.concurrent.Promise;
import io.weft.transport.PeerClosedException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.internal.Inbound;
import io.weft.transport.internal.InboundBuffer;
import io.weft.transport.internal.Tls;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.Charset;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything one Netty-backed transport shares with its event loop: the bounded inbound buffer,
 * end of stream, failure and closed state, and the {@code autoRead} switch that keeps the buffer
 * bounded. It is also the channel's one inbound handler (last in the pipeline, after the
 * {@link SslHandler} when there is one), so it is made per channel and never shared.
 *
 * <p><b>Lifecycle.</b> Created before the connect, added to the channel's pipeline by the
 * connect (which binds it to the channel), fed by the event loop until the channel closes, and
 * {@link #close closed} once by its transport or connector. After {@link #close} it holds no
 * buffered input and no channel.
 *
 * <p><b>Reading.</b> The {@code poll*} methods never wait: they take what is buffered or answer
 * "need more", exactly as {@link InboundBuffer} does. The caller then waits in one of two ways:
 * blocking, {@link #awaitInput(long)}; or non-blocking, {@link #wakeWhenReadable(Runnable)},
 * which registers a one-shot wake-up (for a transport that suspends a continuation). Either way
 * the wait ends when input has <em>arrived since the last poll that answered "need more"</em>:
 * bytes, end of stream, a failure, or a close. Each inbound {@link ByteBuf} (pooled, direct) is
 * copied into the buffer and released at once, on the event loop.
 *
 * <p><b>Bounding.</b> When more than {@code inboundLimit} bytes are buffered the channel's
 * {@code autoRead} is turned off; it is turned on again when a reader drains the buffer below
 * half the limit. The event loop stops reading in the same turn ({@code autoRead} is checked
 * between the reads of one turn); a resume asked for by the reader just before (a read that
 * Netty has already queued for the loop) can still add one read. So the buffer overshoots the
 * limit by one or two of Netty's reads (64 KiB each at most). A pending read that
 * needs more than the limit (a long line, a large {@code readFully}) lifts the limit to what it
 * asks for, and no further: its byte count, or its line limit plus the terminator. Netty's
 * {@code setAutoRead} is atomic and hands the change to the event loop from any thread, so unlike
 * MINA's read suspension it is never lost and needs no re-assertion.
 *
 * <p><b>End of the channel.</b> Netty closes the channel when a read returns -1 (half-closure is
 * off), so a peer's half-close arrives as {@code channelInactive}: the reader sees end of stream
 * after what is buffered, a send fails at once with {@link PeerClosedException}, and every wait
 * (input, a write, a connect, a handshake) is woken by the close, whoever closes.
 *
 * <p><b>Threads.</b> One reader at a time (the transport's session); the event loop at the same
 * time; {@link #close} from any thread. Wake-ups run outside this object's lock, on the thread
 * that delivers the event: a session resumed by one runs right there, and may call back into
 * this object (which must then not be locked).
 */
public final class ChannelState extends ChannelInboundHandlerAdapter implements Inbound {
  private static final Logger LOG = LoggerFactory.getLogger(ChannelState.class);

  /** The inbound limit used when none is given: 64 KiB. */
  public static final int DEFAULT_INBOUND_LIMIT = 64 * 1024;
  /** The name of the TLS handler in a channel's pipeline. */
  public static final String TLS_HANDLER = "weft-tls";

  private static final int INITIAL_CAPACITY = 512;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final InboundBuffer inbound = new InboundBuffer(INITIAL_CAPACITY);
  private final int inboundLimit;
  private final int resumeBelow;

  // Guarded by lock; volatile only so that inputArrived() can look without it.
  private volatile boolean arrived;

  // Guarded by lock.
  private IOException failure;
  private Runnable wakeup;
  private Runnable endWakeup;
  private int highWaterMark;
  /** Bytes the pending read needs buffered (0 when none is pending): the limit is lifted to it. */
  private int wanted;

  /** True once the channel has closed, whoever closed it; or once it has failed. */
  private volatile boolean ended;
  private volatile boolean readerWaiting;
  private volatile String closedBecause;
  private volatile Channel channel;

  /** Done once the TLS handshake has ended, either way; null while none has started. */
  private volatile Future<?> handshake;
  /** The negotiated session once the handshake has completed. */
  private volatile SSLSession tlsSession;
  /** Why the handshake failed, as Netty's handler reported it. */
  private volatile Throwable handshakeCause;

  // Read suspension is decided under the lock and applied outside it (see applyTraffic).
  private volatile boolean suspendWanted;
  private volatile int suspensions;

  /**
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  public ChannelState(int inboundLimit) {
    if (inboundLimit < 2) {
      throw new IllegalArgumentException("inboundLimit < 2: " + inboundLimit);
    }
    this.inboundLimit = inboundLimit;
    this.resumeBelow = inboundLimit / 2;
  }

  /**
   * Binds this state to its channel, before any of the channel's I/O events. A state already
   * closed closes the channel at once: the connect was abandoned.
   */
  public void attach(Channel channel) {
    this.channel = channel;
    if (closedBecause != null) {
      this.channel = null;
      channel.close();
    }
  }

  /** The channel, or null before the connect has made one and after {@link #close}. */
  public Channel channel() {
    return channel;
  }

  // ---- The event loop's side.

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    attach(ctx.channel());
  }

  /**
   * A plaintext channel (no handshake begun: implicit TLS begins one before the channel is
   * active) has its inbound buffer watch the start of the stream for a TLS alert: a TLS server
   * answering plaintext.
   */
  @Override
  public void channelActive(ChannelHandlerContext ctx) {
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
      toRun = onMessage(buf);
    } catch (OutOfMemoryError e) {
      buf.release();
      // Growing this session's buffer failed. Fail the session, whose buffer then goes, rather
      // than let the error reach the event loop, which serves every other session too.
      LOG.debug("channel {}: out of memory buffering input", ctx.channel(), e);
      onFailure(new IOException("out of memory buffering input: " + e.getMessage(), e));
      ctx.close();
      return;
    }
    // Released before the wake-up, which may run the session right here: its next write can
    // then take the same pooled buffer back from this thread's cache.
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

  /**
   * Copies the message's bytes into the session's buffer. On a Weft event loop (always, bar
   * tests) through the thread's own scratch array: a pooled buffer's NIO view would be one or two
   * new {@code ByteBuffer}s per read.
   */
  private void append(ByteBuf message) {
    int index = message.readerIndex();
    int length = message.readableBytes();
    Thread thread = Thread.currentThread();
    if (thread instanceof NettyLoopThread) {
      byte[] scratch = ((NettyLoopThread) thread).scratch;
      while (length > 0) {
        int n = Math.min(length, scratch.length);
        message.getBytes(index, scratch, 0, n);
        inbound.append(scratch, 0, n);
        index += n;
        length -= n;
      }
    } else {
      inbound.append(message.nioBuffer(index, length));
    }
  }

  /** Buffers the message's bytes; returns the reader's wake-up to run, or null. */
  private Runnable onMessage(ByteBuf message) {
    Runnable toRun;
    boolean suspend = false;
    lock.lock();
    try {
      if (closedBecause != null) {
        return null;
      }
      append(message);
      arrived = true;
      int size = inbound.size();
      if (size > highWaterMark) {
        highWaterMark = size;
      }
      if (size > inboundLimit && size >= wanted) {
        if (!suspendWanted) {
          suspendWanted = true;
          suspensions++;
          suspend = true;
        }
      }
      toRun = takeWakeupAndSignal();
    } finally {
      lock.unlock();
    }
    if (suspend) {
      applyTraffic(true);
    }
    return toRun;
  }

  private void onClosed() {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      // After a failure the reader must see the failure, not a clean end of stream.
      if (failure == null) {
        inbound.markEof();
      }
      arrived = true;
      ended = true;
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  private void onFailure(Throwable cause) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (failure == null && !inbound.isEof()) {
        failure = cause instanceof IOException ? (IOException) cause : new IOException(cause.toString(), cause);
      }
      arrived = true;
      ended = true;
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    runWakeup(toRun);
    runWakeup(end);
  }

  private Runnable takeEndWakeup() {
    Runnable toRun = endWakeup;
    endWakeup = null;
    return toRun;
  }

  private Runnable takeWakeupAndSignal() {
    changed.signalAll();
    Runnable toRun = wakeup;
    wakeup = null;
    return toRun;
  }

  private static void runWakeup(Runnable toRun) {
    if (toRun == null) {
      return;
    }
    try {
      toRun.run();
    } catch (RuntimeException | Error e) {
      LOG.error("a wake-up failed; its session may never resume", e);
    }
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
   * STARTTLS: refuses buffered plaintext, then, on the event loop, adds the TLS handler to the
   * live channel (which starts the handshake) and returns the future that is done when the
   * handshake has ended, either way. Plaintext that reaches this handler between the call and
   * the handler's arrival is refused too (the future then fails with the injection). Wait for it
   * with a wait that also ends with the channel, then ask {@link #tlsFailure}.
   *
   * @throws StartTlsInjectionException if bytes are buffered unread
   * @throws IllegalStateException if a handshake has already started
   * @throws IOException if the channel has ended
   */
  public Future<?> startTls(TlsSettings settings, String host, int port) throws IOException {
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
    ch.eventLoop().execute(() -> {
      lock.lock();
      try {
        checkNothingBuffered();
      } catch (StartTlsInjectionException e) {
        if (failure == null) {
          failure = e;
        }
        done.tryFailure(e);
        return;
      } finally {
        lock.unlock();
      }
      watchHandshake(handler, done);
      ch.pipeline().addFirst(TLS_HANDLER, handler);
    });
    return done;
  }

  private void checkNothingBuffered() throws StartTlsInjectionException {
    if (inbound.size() != 0) {
      throw injection(inbound.takeAll());
    }
  }

  private static StartTlsInjectionException injection(byte[] injected) {
    return new StartTlsInjectionException("refusing STARTTLS: " + injected.length
        + " plaintext bytes arrived after the upgrade point, before the handshake: "
        + ProtocolViolationException.quote(injected)
        + " (a server never sends them; an attacker injecting commands does)");
  }

  private static SslHandler newTlsHandler(TlsSettings settings, String host, int port) {
    SslHandler handler = new SslHandler(Tls.newEngine(settings, host, port));
    // The transport's own wait bounds the handshake; Netty's default 10 s must not cut it short.
    handler.setHandshakeTimeoutMillis(0L);
    return handler;
  }

  private void watchHandshake(SslHandler handler, Promise<Void> done) {
    Future<?> f = handler.handshakeFuture();
    if (done == null) {
      handshake = f;
    }
    f.addListener((GenericFutureListener<Future<Object>>) result -> {
      if (result.isSuccess()) {
        tlsSession = handler.engine().getSession();
        if (done != null) {
          done.trySuccess(null);
        }
      } else {
        handshakeCause = result.cause();
        if (done != null) {
          done.tryFailure(result.cause());
        }
      }
    });
  }

  /** The handshake's future, or null when none has started. */
  public Future<?> handshake() {
    return handshake;
  }

  /** The negotiated TLS session, or null before a handshake has completed. */
  public SSLSession tlsSession() {
    return tlsSession;
  }

  /**
   * After a handshake wait ended (not by time): null if the handshake completed; otherwise why
   * not, as the caller reports it: the injection refused, the transport closed, or a
   * {@link io.weft.transport.TlsHandshakeException} saying what failed.
   */
  public IOException tlsFailure(String what) {
    if (tlsSession != null) {
      return null;
    }
    lock.lock();
    try {
      if (failure instanceof StartTlsInjectionException) {
        return new StartTlsInjectionException(failure.getMessage());
      }
      if (closedBecause != null) {
        return new TransportClosedException("transport closed during " + what + ": " + closedBecause);
      }
      Throwable cause = handshakeCause;
      if (cause == null || cause instanceof ClosedChannelException) {
        // The failure that closed the channel says more than "closed".
        cause = failure;
      }
      if (cause == null) {
        cause = new EOFException("the peer closed the connection");
      }
      return Tls.handshakeFailed(what, cause);
    } finally {
      lock.unlock();
    }
  }

  // ---- The reader's side.

  /** As {@link InboundBuffer#describeUnread}, for a read's timeout message. */
  public String describeUnread() {
    lock.lock();
    try {
      return inbound.describeUnread();
    } finally {
      lock.unlock();
    }
  }

  /** As {@link InboundBuffer#pollLine}, or throws the failure or close that ended input. */
  @Override
  public String pollLine(int limit, boolean strict, Charset charset) throws IOException {
    String line;
    boolean needMore;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      line = inbound.pollLine(limit, strict, charset);
      // Before the end of the stream, no line is "need more"; after it, the clean end.
      needMore = line == null && !inbound.isEof();
      // A line of `limit` bytes needs up to limit + 2 with its CRLF; one byte more decides.
      resume = needMore && needMore((long) limit + 2L);
    } finally {
      lock.unlock();
    }
    afterPoll(needMore, resume);
    return line;
  }

  /** As {@link InboundBuffer#pollFully}, or throws the failure or close that ended input. */
  @Override
  public boolean pollFully(byte[] dst, int offset, int length) throws IOException {
    boolean done;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      done = inbound.pollFully(dst, offset, length);
      resume = !done && needMore(length);
    } finally {
      lock.unlock();
    }
    afterPoll(!done, resume);
    return done;
  }

  /**
   * As {@link InboundBuffer#poll}: bytes copied, -1 at end of stream, {@link #NO_BYTES_YET} when
   * the caller must wait; or throws the failure or close that ended input.
   */
  @Override
  public int poll(byte[] dst, int offset, int length) throws IOException {
    int n;
    boolean resume;
    lock.lock();
    try {
      checkOpen();
      wanted = 0;
      n = inbound.poll(dst, offset, length);
      resume = n == NO_BYTES_YET && needMore(1L);
    } finally {
      lock.unlock();
    }
    afterPoll(n == NO_BYTES_YET, resume);
    return n;
  }

  /** As {@link InboundBuffer#isDrained}, or throws the close that ended input. */
  @Override
  public boolean isDrained() throws IOException {
    lock.lock();
    try {
      checkOpen();
      return inbound.isDrained();
    } finally {
      lock.unlock();
    }
  }

  private void checkOpen() throws TransportClosedException {
    String because = closedBecause;
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Records that the reader must wait for {@code want} bytes in all; returns true when reading
   * must resume for them to come (reading is off with less buffered).
   */
  private boolean needMore(long want) throws IOException {
    if (failure != null) {
      throw failureException();
    }
    arrived = false;
    wanted = (int) Math.min(want, Integer.MAX_VALUE);
    if (suspendWanted && inbound.size() < wanted) {
      suspendWanted = false;
      return true;
    }
    return false;
  }

  private void afterPoll(boolean needMore, boolean resume) {
    if (resume) {
      applyTraffic(false);
    } else if (!needMore) {
      resumeIfDrained();
    }
  }

  private void resumeIfDrained() {
    if (!suspendWanted) {
      return;
    }
    boolean resume = false;
    lock.lock();
    try {
      if (suspendWanted && inbound.size() < resumeBelow) {
        suspendWanted = false;
        resume = true;
      }
    } finally {
      lock.unlock();
    }
    if (resume) {
      applyTraffic(false);
    }
  }

  /**
   * Turns reading off or on, then re-reads the wanted state and corrects until it stops
   * changing: the event loop only ever asks to stop and the reader only to resume, and whichever
   * call comes last was made after the last change of the wanted state was read.
   */
  private void applyTraffic(boolean suspend) {
    Channel ch = channel;
    if (ch == null) {
      return;
    }
    for (;;) {
      ch.config().setAutoRead(!suspend);
      boolean now = suspendWanted;
      if (now == suspend) {
        return;
      }
      suspend = now;
    }
  }

  /**
   * A fresh exception for the failure that ended the channel, of the same kind where it is a
   * {@link SocketException} (a reset reads as {@code SocketException: Connection reset}, as on
   * a plain socket), thrown on the reader's own stack with the event loop's as its cause.
   */
  private IOException failureException() {
    IOException f = failure;
    if (f instanceof SocketException) {
      SocketException e = new SocketException(f.getMessage());
      e.initCause(f);
      return e;
    }
    return new IOException("connection failed: " + f, f);
  }

  // ---- The writer's side.

  /**
   * Throws if nothing can be sent any more: closed by its owner
   * ({@link TransportClosedException}), failed (the failure, as a reader sees it), or closed by
   * the peer ({@link PeerClosedException}). Never waits.
   */
  public void checkWritable(String what) throws IOException {
    IOException e = endedException(what, null);
    if (e != null) {
      throw e;
    }
  }

  /**
   * Why a send that did not complete failed, from this state and the write's own failure
   * ({@code cause}, may be null); null if the channel has not ended and {@code cause} says
   * nothing of its end. Netty fails a write with a {@link ClosedChannelException} as it closes
   * the channel after the peer's end of stream, before it reports the close itself: that is the
   * peer's close.
   */
  public IOException endedException(String what, Throwable cause) {
    lock.lock();
    try {
      String because = closedBecause;
      if (because != null) {
        return new TransportClosedException("transport closed during " + what + ": " + because);
      }
      if (failure != null) {
        return failureException();
      }
      if (ended || cause instanceof ClosedChannelException) {
        return new PeerClosedException("the peer closed the connection; " + what + " not sent");
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Sends the first {@code length} bytes of {@code src} in one pooled direct buffer and flushes
   * it. On the channel's own event loop the bytes go to the socket before this returns, and the
   * future is then usually done already; from any other thread the write is handed to the event
   * loop. Netty releases the buffer once written or failed.
   *
   * @throws TransportClosedException if the channel is gone
   */
  public ChannelFuture send(byte[] src, int length) throws IOException {
    Channel ch = channel;
    if (ch == null) {
      checkWritable("flush");
      throw new TransportClosedException("transport is closed");
    }
    ByteBuf buf = ch.alloc().directBuffer(length, length);
    buf.writeBytes(src, 0, length);
    return ch.writeAndFlush(buf);
  }

  /**
   * Records the failure of a write, which Netty reports on the write's future only (never to
   * the handler), as the failure that ended the channel, unless one is recorded already. A
   * plain {@code IOException} from the socket's write ("Connection reset by peer", "Broken
   * pipe") is recorded as the {@link SocketException} a plain socket's write throws.
   */
  public void writeFailed(Throwable cause) {
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
      if (failure == null && closedBecause == null) {
        failure = e;
      }
    } finally {
      lock.unlock();
    }
  }

  /** True once the channel has closed or failed, whoever ended it. Never waits. */
  public boolean hasEnded() {
    return ended || closedBecause != null;
  }

  /**
   * Registers {@code wakeup} to run once when the channel closes or fails, whoever ends it, and
   * returns true; or returns false, registering nothing, if it has already ended. The same rules
   * as {@link #wakeWhenReadable}.
   *
   * @throws IllegalStateException if one is already registered
   */
  public boolean wakeWhenEnded(Runnable wakeup) {
    lock.lock();
    try {
      if (ended || closedBecause != null) {
        return false;
      }
      if (endWakeup != null) {
        throw new IllegalStateException("an end wake-up is already registered");
      }
      endWakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the wake-up registered with {@link #wakeWhenEnded}, if any. Never waits. */
  public void cancelEndWakeup() {
    lock.lock();
    try {
      endWakeup = null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until input arrives (see the class javadoc) for at most {@code nanos}
   * ({@link Deadlines#FOREVER} for no bound). Returns false if the time ran out first.
   *
   * @throws io.weft.transport.BlockingOperationException at once, on an event-loop thread
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public boolean awaitInput(long nanos) throws InterruptedIOException {
    EventLoops.checkMayBlock("input");
    lock.lock();
    readerWaiting = true;
    try {
      long left = nanos;
      while (!arrived && closedBecause == null && failure == null && !inbound.isEof()) {
        if (nanos == Deadlines.FOREVER) {
          changed.await();
        } else {
          if (left <= 0L) {
            return false;
          }
          left = changed.awaitNanos(left);
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for input");
    } finally {
      readerWaiting = false;
      lock.unlock();
    }
  }

  /**
   * Marks the start and the end of a reader's wait that does not go through
   * {@link #awaitInput} (a suspension). Only {@link #isReaderWaiting} reads it.
   */
  public void readerWaiting(boolean waiting) {
    readerWaiting = waiting;
  }

  /** True while a reader waits for input, blocked or suspended. For tests and diagnostics. */
  public boolean isReaderWaiting() {
    return readerWaiting;
  }

  /**
   * The non-blocking form of {@link #awaitInput}: registers {@code wakeup} to run once, when
   * input next arrives, and returns true; or returns false, registering nothing, when input has
   * already arrived and the caller should poll again now. The wake-up runs on the thread that
   * delivers the event (the channel's event loop, or the thread that calls {@link #close}),
   * outside this object's lock.
   *
   * @throws IllegalStateException if a wake-up is already registered
   */
  public boolean wakeWhenReadable(Runnable wakeup) {
    lock.lock();
    try {
      if (arrived || closedBecause != null || failure != null || inbound.isEof()) {
        return false;
      }
      if (this.wakeup != null) {
        throw new IllegalStateException("a read wake-up is already registered");
      }
      this.wakeup = wakeup;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Forgets the wake-up registered with {@link #wakeWhenReadable}, if any. Never waits. */
  public void cancelWakeup() {
    lock.lock();
    try {
      wakeup = null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits, blocking, for {@code future} for at most {@code nanos} ({@link Deadlines#FOREVER} for
   * no bound), or until the channel ends. Returns true when it is done or the channel has ended
   * (the caller tells which), false if the time ran out first.
   *
   * @throws io.weft.transport.BlockingOperationException at once, on an event-loop thread
   * @throws TransportClosedException if this state is closed while waiting
   * @throws InterruptedIOException if the thread is interrupted; its interrupt flag is set again
   */
  public boolean awaitDone(Future<?> future, long nanos, String what) throws IOException {
    if (future.isDone()) {
      return true;
    }
    EventLoops.checkMayBlock(what);
    GenericFutureListener<Future<Object>> signal = done -> {
      lock.lock();
      try {
        changed.signalAll();
      } finally {
        lock.unlock();
      }
    };
    @SuppressWarnings({"unchecked", "rawtypes"})
    Future<Object> f = (Future) future;
    f.addListener(signal);
    lock.lock();
    try {
      long left = nanos;
      while (!future.isDone()) {
        String because = closedBecause;
        if (because != null) {
          throw new TransportClosedException("transport closed during " + what + ": " + because);
        }
        if (ended) {
          return true;
        }
        if (nanos == Deadlines.FOREVER) {
          changed.await();
        } else {
          if (left <= 0L) {
            return false;
          }
          left = changed.awaitNanos(left);
        }
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for " + what);
    } finally {
      lock.unlock();
      f.removeListener(signal);
    }
  }

  // ---- Closing.

  /**
   * Closes this state and its channel (without flushing), wakes any waiting reader or
   * registered wake-up, and discards buffered input. Returns false if it was already closed.
   * Safe from any thread, event loops included: it never waits.
   */
  public boolean close(String because) {
    Runnable toRun;
    Runnable end;
    lock.lock();
    try {
      if (closedBecause != null) {
        return false;
      }
      closedBecause = because;
      inbound.clear();
      toRun = takeWakeupAndSignal();
      end = takeEndWakeup();
    } finally {
      lock.unlock();
    }
    Channel ch = channel;
    // A finished transport may stay reachable from its owner's code; its channel need not.
    channel = null;
    if (ch != null) {
      ch.close();
    }
    runWakeup(toRun);
    runWakeup(end);
    return true;
  }

  /** True once {@link #close} has been called. */
  public boolean isClosed() {
    return closedBecause != null;
  }

  /** Why this was closed, or null while open. */
  public String closedBecause() {
    return closedBecause;
  }

  /** Bytes buffered now. For tests and diagnostics. */
  public int buffered() {
    lock.lock();
    try {
      return inbound.size();
    } finally {
      lock.unlock();
    }
  }

  /** The most bytes ever buffered at once. For tests and diagnostics. */
  public int highWaterMark() {
    lock.lock();
    try {
      return highWaterMark;
    } finally {
      lock.unlock();
    }
  }

  /** The capacity of the inbound buffer's array now. For tests and diagnostics. */
  public int bufferCapacity() {
    lock.lock();
    try {
      return inbound.capacity();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes handed to Netty and not yet written to the socket. For tests and diagnostics. */
  public long pendingWriteBytes() {
    Channel ch = channel;
    ChannelOutboundBuffer out = ch == null ? null : ch.unsafe().outboundBuffer();
    return out == null ? 0L : out.totalPendingWriteBytes();
  }

  /** How many times reading from the peer was turned off. For tests and diagnostics. */
  public int suspensions() {
    return suspensions;
  }

  /** True while reading from the peer is off. For tests and diagnostics. */
  public boolean isReadSuspended() {
    Channel ch = channel;
    return ch != null && !ch.config().isAutoRead();
  }

  @Override
  public String toString() {
    return "ChannelState{channel=" + channel + (closedBecause == null ? "" : ", closed: " + closedBecause) + "}";
  }
}
