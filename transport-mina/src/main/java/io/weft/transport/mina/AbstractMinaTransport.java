package io.weft.transport.mina;

import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.internal.FailurePolicy;
import io.weft.transport.internal.OutboundBuffer;
import io.weft.transport.internal.Tls;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.SessionState;
import io.weft.transport.mina.internal.TlsFilter;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSession;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.future.WriteFuture;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSession;

/**
 * What Weft's two MINA transports share: everything but the waiting. {@link MinaTransport}
 * blocks where {@link ContinuingMinaTransport} suspends; both poll the same {@link SessionState},
 * buffer writes the same way and fail the same way. Nothing here waits, so nothing here is
 * rewritten for continuations and the blocking transport stays as cheap as before.
 */
abstract sealed class AbstractMinaTransport implements Transport
    permits MinaTransport, ContinuingMinaTransport {
  final SessionState state;
  private final long sessionStartNanos;
  private final MinaConnector owner;
  private final SocketAddress remote;
  private final OutboundBuffer outbound = new OutboundBuffer(256);
  private volatile Timeout timeout;

  AbstractMinaTransport(SessionState state, Timeout timeout, long sessionStartNanos, MinaConnector owner,
      SocketAddress remote) {
    this.state = state;
    this.timeout = timeout;
    this.sessionStartNanos = sessionStartNanos;
    this.owner = owner;
    this.remote = remote;
  }

  // ---- Writing: buffer, then the subclass sends (waiting its own way) when these say so.

  /** Buffers bytes; true when the buffer is now large enough to send. */
  final boolean buffer(byte[] src, int offset, int length) throws IOException {
    checkSendable("write");
    outbound.append(src, offset, length);
    return outbound.shouldSend();
  }

  /** Buffers text; true when the buffer is now large enough to send. */
  final boolean buffer(String text, Charset charset) throws IOException {
    checkSendable("write");
    outbound.append(text, charset);
    return outbound.shouldSend();
  }

  /** Buffers a line and CRLF; true when the buffer is now large enough to send. */
  final boolean bufferLine(String line) throws IOException {
    checkSendable("write");
    outbound.appendLine(line);
    return outbound.shouldSend();
  }

  /**
   * Fails at once, and closes this transport, if nothing can be sent any more: after the peer
   * closed the connection ({@link io.weft.transport.PeerClosedException}) or the session
   * failed; {@link TransportClosedException} once closed.
   */
  final void checkSendable(String what) throws IOException {
    checkOpen();
    if (state.hasEnded()) {
      try {
        state.checkWritable(what);
      } catch (IOException e) {
        throw fail(e);
      }
    }
  }

  /** True when something is buffered to send. */
  final boolean hasOutbound() {
    return outbound.size() != 0;
  }

  /**
   * Hands everything buffered (there must be something: see {@link #hasOutbound()}) to MINA and
   * returns the write's future; or returns null when it was all written to the socket at once, on
   * the session's own I/O thread (see {@link IoThreads#writeNow}): handed to the OS, nothing to
   * wait for.
   */
  final WriteFuture startSend() throws IOException {
    state.checkWritable("flush");
    IoSession session = state.session();
    if (session == null) {
      // Closed between the check and here, from another thread.
      state.checkWritable("flush");
      throw new TransportClosedException("transport is closed");
    }
    int size = outbound.size();
    int now = IoThreads.writeNow(session, outbound.array(), size);
    if (now == size) {
      outbound.clear();
      return null;
    }
    byte[] rest = Arrays.copyOfRange(outbound.array(), now, size);
    outbound.clear();
    return IoThreads.write(session, IoBuffer.wrap(rest));
  }

  /**
   * Checks a write future after its wait: done and written, or the session ended under it
   * (the close does not always complete a write future).
   */
  final void checkWritten(WriteFuture written) throws IOException {
    if (written.isDone() && written.isWritten()) {
      return;
    }
    Throwable cause = written.isDone() ? written.getException() : null;
    IOException ended = state.endedException("flush", cause);
    if (ended != null) {
      throw ended;
    }
    throw new IOException("write failed: " + cause, cause);
  }

  // ---- TLS: the steps around the wait, which each subclass does its own way.

  /** What a handshake wait on this transport is called in messages. */
  final String handshakeWhat(TlsSettings settings) {
    return Tls.what(Tls.hostName(settings, remote), Tls.port(remote));
  }

  /** The time the handshake may take (see {@link Tls#handshakeWaitNanos}). */
  final long handshakeWaitNanos(TlsSettings settings, String what) throws TransportTimeoutException {
    return Tls.handshakeWaitNanos(settings, timeout, sessionStartNanos, what);
  }

  /**
   * STARTTLS, up to the wait: refuses buffered plaintext, adds the TLS filter to the live session
   * (which starts the handshake) and returns the handshake's future. Nothing must be left to
   * flush. Closes this transport on any failure. It may run on the session's I/O thread (a
   * continuation resumed there); a blocking caller refuses that itself before it gets here.
   */
  final IoFuture beginStartTls(TlsSettings settings, String what) throws IOException {
    checkOpen();
    IoSession session = state.session();
    if (session != null && !(session instanceof NioSession)) {
      throw new IllegalStateException("TLS needs a TCP session; the in-VM pipe has no host to verify");
    }
    try {
      state.checkWritable("STARTTLS");
      IoFuture handshake = state.beginTls(session, true);
      try {
        session.getFilterChain().addFirst(TlsFilter.NAME,
            new TlsFilter(settings, Tls.hostName(settings, remote), Tls.port(remote), true));
      } catch (RuntimeException e) {
        throw Tls.handshakeFailed(what, e);
      }
      return handshake;
    } catch (StartTlsInjectionException e) {
      close("refused STARTTLS: plaintext past the upgrade point");
      throw e;
    } catch (IOException e) {
      throw fail(e);
    }
  }

  /**
   * After a handshake wait that did not run out of time: returns if the handshake completed,
   * otherwise closes this transport and throws why not.
   */
  final void endHandshake(String what) throws IOException {
    IOException failed = state.tlsFailure(what);
    if (failed != null) {
      if (!(failed instanceof TransportClosedException)) {
        close("failed: " + failed.getMessage());
      }
      throw failed;
    }
  }

  /** After a handshake wait that ran out of time: closes this transport and returns the exception. */
  final IOException handshakeTimedOut(long waitedNanos, String what) {
    return fail(timedOut(waitedNanos, what));
  }

  @Override
  public final Optional<SSLSession> tlsSession() {
    return Optional.ofNullable(state.tlsSession());
  }

  // ---- Time.

  /** The wait allowed for the next operation (see {@link Deadlines#waitNanos}). */
  final long waitNanos(String what) throws TransportTimeoutException {
    return Deadlines.waitNanos(timeout, sessionStartNanos, what);
  }

  /** The exception for a wait of {@code waitedNanos} that ran out. */
  final TransportTimeoutException timedOut(long waitedNanos, String what) {
    return Deadlines.timedOut(timeout, sessionStartNanos, waitedNanos, what);
  }

  /**
   * The wait allowed for a read of {@code awaited}; past the session deadline, the read's
   * timeout naming what it waited for and what had arrived.
   */
  final long readWaitNanos(String awaited) throws TransportTimeoutException {
    try {
      return Deadlines.waitNanos(timeout, sessionStartNanos, "read");
    } catch (TransportTimeoutException e) {
      throw readTimedOut(0L, awaited);
    }
  }

  /** The exception for a read of {@code awaited} whose wait of {@code waitedNanos} ran out. */
  final TransportTimeoutException readTimedOut(long waitedNanos, String awaited) {
    return Deadlines.readTimedOut(timeout, sessionStartNanos, waitedNanos, awaited, state.describeUnread());
  }

  @Override
  public final Timeout timeout() {
    return timeout;
  }

  @Override
  public final void timeout(Timeout timeout) {
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  // ---- State and failure.

  @Override
  public final boolean isOpen() {
    return !state.isClosed();
  }

  @Override
  public final void close() {
    close("closed by its owner");
  }

  final void close(String because) {
    if (state.close(because)) {
      owner.forget(state);
    }
  }

  final void checkOpen() throws TransportClosedException {
    String because = state.closedBecause();
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Closes this transport after a failed operation, if {@link FailurePolicy} says so, and returns
   * the exception to throw.
   */
  final IOException fail(IOException e) {
    String because = FailurePolicy.closeReason(e);
    if (because != null) {
      close(because);
    }
    return e;
  }

  /**
   * What the read loops' waiters of both MINA transports share: the open check and the failure
   * policy. Each transport's waiter adds its own way of waiting for input.
   */
  abstract class ReadWaiter {
    /**
     * Throws if this transport is closed.
     *
     * @throws TransportClosedException if it is closed
     */
    public final void checkOpen() throws TransportClosedException {
      AbstractMinaTransport.this.checkOpen();
    }

    /**
     * Closes this transport if {@code e} should, and returns it.
     *
     * @param e what a read failed with
     * @return {@code e}
     */
    public final IOException failed(IOException e) {
      return fail(e);
    }
  }

  /** The per-session state; for tests in this module. */
  final SessionState state() {
    return state;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + remote + (isOpen() ? "" : ", closed") + "}";
  }
}
