package io.weft.transport.mina.internal;

import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.Tls;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import javax.net.ssl.SSLSession;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.future.DefaultIoFuture;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.future.WriteFuture;
import org.apache.mina.core.service.IoProcessor;
import org.apache.mina.core.session.AbstractIoSession;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.session.IoSessionConfig;
import org.apache.mina.core.write.WriteToClosedSessionException;
import org.apache.mina.filter.ssl.SslFilter;
import org.apache.mina.transport.socket.nio.NioSession;

/**
 * The {@link ConnectionState} of one MINA session: what MINA adds to the shared state is the
 * binding to the {@link IoSession}, MINA's read suspension, the TLS filter's handshake and
 * MINA's futures. MINA's {@code IoSession.read()} is not used: its queue is unbounded and a close
 * during a pending read leaves later reads hanging.
 *
 * <p><b>Lifecycle.</b> Created before the connect, {@link #attach attached} to the
 * {@link IoSession} by the connect's session initializer, fed by {@link SessionStateHandler}
 * until the session closes, and closed once by its transport or connector.
 *
 * <p><b>End of the session.</b> MINA closes the session when a read returns -1, so a peer's
 * half-close arrives as a session close: the reader sees end of stream after what is buffered,
 * a send fails at once with {@link io.weft.transport.PeerClosedException}, and any wait (input,
 * a write or connect future) is woken by the close, whoever closes.
 *
 * <p><b>Read suspension.</b> MINA 2.2 changes a TCP session's interest set by read-modify-write
 * from whichever thread asks, racing with its I/O thread's own changes, so a suspend or a resume
 * can be lost: this state re-asserts them (see {@link ConnectionState#reassertTraffic()}). Only
 * TCP (NIO) sessions are suspended. The in-VM pipe has no backpressure to give: a write completes
 * inline whether or not the reader reads, and a suspended pipe session only moves the bytes from
 * this buffer into MINA's own unbounded queue. Worse, MINA 2.2.10's pipe can reorder messages
 * when a resume delivers that queue while the peer is writing (seen in tests). So on the pipe
 * this buffer holds whatever the peer has sent and not yet been read.
 *
 * <p><b>Threads.</b> As {@link ConnectionState}'s; no MINA call that can run a callback is made
 * under the lock: on the in-VM pipe a MINA call can run the peer's callbacks inline, and those
 * could be waiting for MINA's own session lock.
 */
public final class SessionState extends ConnectionState<IoFuture, ByteBuffer> {
  /** The {@link IoSession} attribute under which a session's state is kept. */
  public static final AttributeKey KEY = new AttributeKey(SessionState.class, "state");

  private volatile IoSession session;
  /** The session while its close is under way, and after a close that threw: closed again by the next. */
  private volatile IoSession unclosed;
  /** The thread inside the session's close, while it is. */
  private volatile Thread closer;
  /** MINA reported a failure to the closing thread inside its close (see {@link #failed}). */
  private volatile boolean failedInsideClose;
  /** The session's close future, kept once attached: {@link #session} is forgotten at the close. */
  private volatile IoFuture closeFuture;
  /** The TCP session's read buffer size as MINA configured it (see attach); 0 for the pipe. */
  private volatile int minaReadBufferSize;
  private volatile int minaMinReadBufferSize;
  /** True for a TCP session, whose input one processor thread delivers (see onMessage). */
  private volatile boolean confinable;

  /** Done once the TLS handshake has completed; null while none has started. */
  private volatile DefaultIoFuture handshake;
  /** True from a STARTTLS until its handshake completes: plaintext arriving then is an injection. */
  private volatile boolean upgrading;

  /**
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  public SessionState(int inboundLimit) {
    super(inboundLimit, true);
  }

  /**
   * Binds this state to its session (from the connect's session initializer, before any event).
   * A state already closed closes the session at once: the connect was abandoned.
   */
  public void attach(IoSession session) {
    session.setAttribute(KEY, this);
    // Plaintext until beginTls says otherwise: a TLS alert at the start means a TLS port.
    expectPlaintextFrom(session.getRemoteAddress());
    if (session instanceof NioSession) {
      // Read by NioProcessor straight into its thread's direct buffer while no filter is in the
      // chain: the heap buffer MINA allocates before each read goes unused, so make it one byte.
      // beginTls gives it back its sizes for reads through the filter.
      IoSessionConfig config = session.getConfig();
      minaReadBufferSize = config.getReadBufferSize();
      minaMinReadBufferSize = config.getMinReadBufferSize();
      config.setMinReadBufferSize(1);
      config.setReadBufferSize(1);
      confinable = true;
    } else {
      notSuspendable();
    }
    this.closeFuture = session.getCloseFuture();
    this.session = session;
    if (isClosed()) {
      this.session = null;
      session.closeNow();
    }
  }

  /**
   * MINA's close future is done once the processor has closed the session's channel (at the
   * end of its turn, or inside the close on the processor's own thread, see IoThreads.close)
   * and told the session's handler.
   */
  @Override
  protected void watchDisconnect() {
    IoFuture f = closeFuture;
    if (f == null) {
      disconnected();
    } else {
      f.addListener(done -> disconnected());
    }
  }

  /** The session, or null before the connect has created one and after it is closed. */
  public IoSession session() {
    return session;
  }

  // ---- The I/O side: called by SessionStateHandler on whichever thread delivers the event.

  /**
   * Buffers {@code message} and runs the reader's wake-up. A TCP session's input comes from its
   * one processor's thread: the first delivery there names it (see
   * {@link #inputDeliveredOnCurrentThread()}), so that once a session resumed there polls, its
   * polls and the deliveries take no lock.
   */
  void onMessage(ByteBuffer message) {
    if (confinable && !hasInputLoop() && Thread.currentThread() instanceof MinaIoThread) {
      inputDeliveredOnCurrentThread();
    }
    runWakeup(onInput(message));
  }

  @Override
  protected IOException append(ByteBuffer message) {
    if (upgrading && !isSecured()) {
      // Plaintext that reached the handler past the upgrade point without going through TLS.
      byte[] injected = new byte[message.remaining()];
      message.get(injected);
      return injection(injected);
    }
    inbound.append(message);
    return null;
  }

  /** The handshake completed ({@code SslEvent.SECURED}): records its session, ends the wait. */
  void onSecured(IoSession session) {
    tlsSession = (SSLSession) session.getAttribute(SslFilter.SSL_SECURED);
    upgrading = false;
    DefaultIoFuture h = handshake;
    if (h != null) {
      h.setValue(Boolean.TRUE);
    }
  }

  private boolean isSecured() {
    IoSession s = session;
    return tlsSession != null || (s != null && s.getAttribute(SslFilter.SSL_SECURED) != null);
  }

  // ---- TLS.

  /**
   * Starts waiting for a TLS handshake on this session and returns the future that is done when
   * it completes (it is not completed by a failure or a close: wait with a wait that also ends
   * with the session, as both ways of waiting do, then ask {@link #tlsFailure}). For STARTTLS
   * ({@code upgrade}) it first refuses if plaintext is buffered unread, and from then on treats
   * plaintext that reaches the handler before the handshake completes as an injection. Call it
   * before the TLS filter is added.
   *
   * @throws io.weft.transport.StartTlsInjectionException if {@code upgrade} and bytes are
   *     buffered unread
   * @throws IllegalStateException if a handshake has already started
   */
  public IoFuture beginTls(IoSession session, boolean upgrade) throws IOException {
    lock.lock();
    try {
      checkOpen();
      if (handshake != null) {
        throw new IllegalStateException("this transport already speaks TLS");
      }
      inbound.stopExpectingPlaintext();
      if (upgrade) {
        checkNothingBuffered();
      }
      upgrading = upgrade;
      if (minaReadBufferSize > 0) {
        session.getConfig().setReadBufferSize(minaReadBufferSize);
        session.getConfig().setMinReadBufferSize(minaMinReadBufferSize);
      }
      handshake = new DefaultIoFuture(session);
      return handshake;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public IoFuture handshake() {
    return handshake;
  }

  /** @throws IllegalStateException on the in-VM pipe, which has no host to verify */
  @Override
  public IoFuture startTls(TlsSettings settings, String host, int port, String what) throws IOException {
    IoSession s = session;
    if (s != null && !(s instanceof NioSession)) {
      throw new IllegalStateException("TLS needs a TCP session; the in-VM pipe has no host to verify");
    }
    refuseInjectedPlaintext();
    checkWritable("STARTTLS");
    IoFuture started = beginTls(s, true);
    try {
      s.getFilterChain().addFirst(TlsFilter.NAME, new TlsFilter(settings, host, port, true));
    } catch (RuntimeException e) {
      throw Tls.handshakeFailed(what, e);
    }
    return started;
  }

  // ---- Sending.

  /**
   * {@inheritDoc} Written at once only by the session's own I/O thread delivering its input or
   * completing its connect, with nothing queued before (see {@link IoThreads#writeNow}); what it
   * could not write goes to MINA as one {@code IoBuffer}.
   */
  @Override
  public IoFuture send(byte[] src, int length) throws IOException {
    IoSession s = session;
    if (s == null) {
      // Closed between the caller's check and here, from another thread.
      checkWritable("flush");
      throw new TransportClosedException("transport is closed");
    }
    int now = IoThreads.writeNow(s, src, length);
    if (now == length) {
      return null;
    }
    return IoThreads.write(s, IoBuffer.wrap(Arrays.copyOfRange(src, now, length)));
  }

  @Override
  protected boolean isWritten(IoFuture written) {
    return written.isDone() && ((WriteFuture) written).isWritten();
  }

  @Override
  protected Throwable failureOf(IoFuture written) {
    return ((WriteFuture) written).getException();
  }

  // ---- The hooks.

  @Override
  protected boolean isClosedConnection(Throwable writeFailure) {
    return writeFailure instanceof WriteToClosedSessionException;
  }

  /** @throws io.weft.transport.BlockingOperationException on a MINA I/O thread (see {@link IoThreads}) */
  @Override
  public void checkMayBlock(String what) {
    IoThreads.checkNotIoThread(what);
  }

  @Override
  public void checkMaySuspend(String what) {
    IoThreads.checkMaySuspend(what);
  }

  @Override
  public boolean isDone(IoFuture future) {
    return future.isDone();
  }

  @Override
  public void wakeWhenDone(IoFuture future, Runnable wake) {
    // addListener on a future that is done already runs the listener inline.
    if (future instanceof ConnectFuture) {
      future.addListener(done -> IoThreads.wakeConnected((ConnectFuture) done, wake));
    } else {
      future.addListener(done -> wake.run());
    }
  }

  @Override
  protected void disconnect() {
    IoSession s = session;
    session = null;
    if (s != null) {
      unclosed = s;
      closer = Thread.currentThread();
      try {
        IoThreads.close(s);
      } finally {
        closer = null;
      }
      if (!failedInsideClose) {
        unclosed = null;
        return;
      }
      // A filter's close threw an Exception: MINA handed it to the handler and returned as if
      // the session were closed, which it never will be. Closed below instead.
    }
    s = unclosed;
    // Not once the processor has closed it: nothing is left to close then. (A second remove would
    // be harmless in MINA 2.2: the processor skips a session already queued or already closing.)
    if (s != null && !s.getCloseFuture().isClosed()) {
      // The close before this one failed (an Error from a filter's close, which MINA throws: the
      // heap ran out, say; or an Exception, which it does not): MINA marks a session closing
      // before its filters close it, so closeNow would now return at once. Hand the session to
      // its processor, as the chain's head filter would have: the processor closes the channel
      // and completes the close future, which reports the close.
      @SuppressWarnings("unchecked") // MINA hands out its processor as a raw type
      IoProcessor<IoSession> processor = ((AbstractIoSession) s).getProcessor();
      processor.remove(s);
    }
    unclosed = null;
  }

  /**
   * MINA reports {@code session}'s failure to the handler: when that happens on the thread that
   * is closing it, inside the close, a filter's close threw, and the close will not complete.
   */
  void failed(IoSession session) {
    if (closer == Thread.currentThread() && unclosed == session) {
      failedInsideClose = true;
    }
  }

  @Override
  protected boolean suspendReading(boolean suspend) {
    IoSession s = session;
    if (s == null) {
      return false;
    }
    if (suspend) {
      s.suspendRead();
    } else {
      s.resumeRead();
      if (s instanceof NioSession) {
        // MINA 2.2 changes the interest set without waking the selector; on JDK 11+ the change
        // then waits for the next select, up to a second away. A flush request is MINA's own
        // way to wake the selector, and with nothing queued it does nothing else.
        @SuppressWarnings("unchecked") // MINA hands out its processor as a raw type
        IoProcessor<IoSession> processor = ((AbstractIoSession) s).getProcessor();
        processor.flush(s);
      }
    }
    return true;
  }

  @Override
  public long pendingWriteBytes() {
    IoSession s = session;
    return s == null ? 0L : s.getScheduledWriteBytes();
  }

  @Override
  public boolean isReadSuspended() {
    IoSession s = session;
    return s != null && s.isReadSuspended();
  }

  @Override
  public String toString() {
    String because = closedBecause();
    return "SessionState{session=" + session + (because == null ? "" : ", closed: " + because) + "}";
  }
}
