package io.weft.transport.netty;

import io.netty.channel.ChannelFuture;
import io.netty.util.concurrent.Future;
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
import io.weft.transport.netty.internal.ChannelState;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLSession;

/**
 * What Weft's two Netty transports share: everything but the waiting. {@link NettyTransport}
 * blocks where {@link ContinuingNettyTransport} suspends; both poll the same
 * {@link ChannelState}, buffer writes the same way and fail the same way. Nothing here waits, so
 * nothing here is rewritten for continuations.
 */
abstract sealed class AbstractNettyTransport implements Transport
    permits NettyTransport, ContinuingNettyTransport {
  final ChannelState state;
  private final long sessionStartNanos;
  private final NettyConnector owner;
  private final SocketAddress remote;
  private final OutboundBuffer outbound = new OutboundBuffer(256);
  private volatile Timeout timeout;

  AbstractNettyTransport(ChannelState state, Timeout timeout, long sessionStartNanos, NettyConnector owner,
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
   * closed the connection ({@link io.weft.transport.PeerClosedException}) or the channel failed;
   * {@link TransportClosedException} once closed.
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
   * Hands everything buffered (there must be something: see {@link #hasOutbound()}) to Netty and
   * returns the write's future. On the channel's own event loop (a continuation resumed there)
   * the bytes reach the socket before this returns and the future is usually done already.
   */
  final ChannelFuture startSend() throws IOException {
    state.checkWritable("flush");
    int size = outbound.size();
    ChannelFuture written = state.send(outbound.array(), size);
    outbound.clear();
    return written;
  }

  /**
   * Checks a write future after its wait: done and written, or the channel ended under it.
   */
  final void checkWritten(ChannelFuture written) throws IOException {
    if (written.isSuccess()) {
      return;
    }
    Throwable cause = written.isDone() ? written.cause() : null;
    state.writeFailed(cause);
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
   * STARTTLS, up to the wait: refuses buffered plaintext, adds the TLS handler to the live
   * channel (which starts the handshake) and returns the handshake's future. Nothing must be
   * left to flush. Closes this transport on any failure.
   */
  final Future<?> beginStartTls(TlsSettings settings, String what) throws IOException {
    checkOpen();
    try {
      state.checkWritable("STARTTLS");
      try {
        return state.startTls(settings, Tls.hostName(settings, remote), Tls.port(remote));
      } catch (IllegalArgumentException e) {
        throw Tls.handshakeFailed(what, e);
      }
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

  /** Closes this transport after a failed operation and returns the exception to throw. */
  final IOException fail(IOException e) {
    String because = FailurePolicy.closeReason(e);
    if (because != null) {
      close(because);
    }
    return e;
  }

  /**
   * What the read loops' waiters of both Netty transports share: the open check and the failure
   * policy. Each transport's waiter adds its own way of waiting for input.
   */
  abstract class ReadWaiter {
    /**
     * Throws if this transport is closed.
     *
     * @throws TransportClosedException if it is closed
     */
    public final void checkOpen() throws TransportClosedException {
      AbstractNettyTransport.this.checkOpen();
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

  /** The per-channel state; for tests in this module. */
  final ChannelState state() {
    return state;
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + remote + (isOpen() ? "" : ", closed") + "}";
  }
}
