package io.weft.transport.spi;

import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.charset.Charset;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;

/**
 * What every transport over an I/O library's {@link ConnectionState} shares, whichever way it
 * waits: outbound buffering, the send and STARTTLS steps up to their waits, timeouts, and the
 * close and failure policy. Nothing here waits, so nothing here is rewritten for continuations.
 * Two skeletons extend it, one per way of waiting: {@link BlockingConnectionTransport} here, and
 * {@code SuspendingConnectionTransport} in continuations-spi; each library's public transport
 * class extends one of them and adds nothing but its constructor. For transport
 * implementations, not protocol code.
 *
 * <p>Lifecycle: made by its connector once the connect is done, over the connection's state;
 * closed by its owner, by a failure its {@link FailurePolicy} says ends it, or by the connector.
 *
 * @param <F> the library's future type
 */
public abstract class ConnectionTransport<F> implements Transport, ReplyTiming, ReportsClose, ReportsArrival {
  /** The connection's state. */
  protected final ConnectionState<F, ?> state;
  private final long sessionStartNanos;
  private final Ticker clock;
  private final Runnable forget;
  private final SocketAddress remote;
  private final OutboundBuffer outbound = new OutboundBuffer(256);
  private volatile Timeout timeout;

  /**
   * A transport over a connected state whose session deadline is read on {@link System#nanoTime()}:
   * for a connector on {@link Ticker#system()} only (a start read on another clock would make the
   * deadline pass at once or never); otherwise use the constructor that takes the clock.
   *
   * @param state the connection's state
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, for its deadline
   * @param forget tells the connector that this transport closed (it stops tracking the state)
   * @param remote the peer's address
   * @param <S> the library's state type
   */
  protected <S extends ConnectionState<F, ?>> ConnectionTransport(S state, Timeout timeout, long sessionStartNanos,
      Consumer<? super S> forget, SocketAddress remote) {
    this(state, timeout, sessionStartNanos, forget, remote, Ticker.system());
  }

  /**
   * A transport over a connected state whose session deadline is read on {@code clock}.
   *
   * @param state the connection's state
   * @param timeout the transport's timeout
   * @param sessionStartNanos when the session started, on {@code clock}, for its deadline
   * @param forget tells the connector that this transport closed (it stops tracking the state)
   * @param remote the peer's address
   * @param clock the clock of the session deadline: the connector's
   * @param <S> the library's state type
   */
  protected <S extends ConnectionState<F, ?>> ConnectionTransport(S state, Timeout timeout, long sessionStartNanos,
      Consumer<? super S> forget, SocketAddress remote, Ticker clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.state = state;
    this.timeout = timeout;
    this.sessionStartNanos = sessionStartNanos;
    this.forget = () -> forget.accept(state);
    this.remote = remote;
  }

  // ---- Writing: buffer, then the subclass sends (waiting its own way) when these say so.

  /**
   * Buffers bytes to send.
   *
   * @param src the bytes, copied before this returns
   * @param offset where in {@code src} they start
   * @param length how many
   * @return true when the buffer is now large enough to send ({@link OutboundBuffer#shouldSend()}),
   *     without waiting for a flush
   * @throws IOException if nothing can be sent any more (see {@link #checkSendable})
   */
  protected final boolean buffer(byte[] src, int offset, int length) throws IOException {
    checkSendable("write");
    outbound.append(src, offset, length);
    return outbound.shouldSend();
  }

  /**
   * Buffers text to send.
   *
   * @param text the text, with no line end added
   * @param charset its encoding
   * @return true when the buffer is now large enough to send ({@link OutboundBuffer#shouldSend()}),
   *     without waiting for a flush
   * @throws IOException if nothing can be sent any more (see {@link #checkSendable})
   */
  protected final boolean buffer(String text, Charset charset) throws IOException {
    checkSendable("write");
    outbound.append(text, charset);
    return outbound.shouldSend();
  }

  /**
   * Buffers a line and CRLF to send, the line in UTF-8.
   *
   * @param line the line, without its end
   * @return true when the buffer is now large enough to send ({@link OutboundBuffer#shouldSend()}),
   *     without waiting for a flush
   * @throws IOException if nothing can be sent any more (see {@link #checkSendable})
   */
  protected final boolean bufferLine(String line) throws IOException {
    checkSendable("write");
    outbound.appendLine(line);
    return outbound.shouldSend();
  }

  /**
   * Fails at once, and closes this transport, if nothing can be sent any more: after the peer
   * closed the connection ({@link io.weft.transport.PeerClosedException}) or it failed;
   * {@link TransportClosedException} once closed.
   *
   * @param what the operation, for the message ({@code "write"}, {@code "flush"})
   * @throws IOException why nothing can be sent
   */
  protected final void checkSendable(String what) throws IOException {
    checkOpen();
    if (state.hasEnded()) {
      try {
        state.checkWritable(what);
      } catch (IOException e) {
        throw fail(e);
      }
    }
  }

  /**
   * Whether a flush has anything to send.
   *
   * @return true when something is buffered to send
   */
  protected final boolean hasOutbound() {
    return outbound.size() != 0;
  }

  /**
   * Hands everything buffered (there must be something: see {@link #hasOutbound()}) to the
   * library and returns the write's future; or null when it was all written to the socket at
   * once (see {@link ConnectionState#send}). The buffer is then empty; the caller waits for
   * the future its own way, then asks {@link ConnectionState#checkWritten}.
   *
   * @return the write's future, or null when there is nothing to wait for
   * @throws IOException if the connection has ended or failed (see
   *     {@link ConnectionState#checkWritable}); the buffer is kept then
   */
  protected final F startSend() throws IOException {
    state.checkWritable("flush");
    state.replies.sending();
    F written = state.send(outbound.array(), outbound.size());
    outbound.clear();
    return written;
  }

  // ---- Reply timing: stamped where the bytes are handed on and where they arrive.

  @Override
  public final void timeReplies(Ticker ticker) {
    state.replies.ticker(ticker);
  }

  @Override
  public final long sentNanos() {
    return state.replies.sentNanos();
  }

  @Override
  public final long firstByteNanos() {
    return state.replies.firstByteNanos();
  }

  // ---- TLS: the steps around the wait, which each subclass does its own way.

  /**
   * What a handshake wait on this transport is called in messages.
   *
   * @param settings the handshake's settings, whose host name (if set) wins over the address's
   * @return {@code "TLS handshake with host:port"}
   */
  protected final String handshakeWhat(TlsSettings settings) {
    return Tls.what(Tls.hostName(settings, remote), Tls.port(remote));
  }

  /**
   * The time the handshake may take (see {@link Tls#handshakeWaitNanos}).
   *
   * @param settings the handshake's settings, which may set its own timeout
   * @param what the handshake, from {@link #handshakeWhat}, for the message
   * @return the wait in nanoseconds, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  protected final long handshakeWaitNanos(TlsSettings settings, String what) throws TransportTimeoutException {
    return Tls.handshakeWaitNanos(clock, settings, timeout, sessionStartNanos, what);
  }

  /**
   * STARTTLS, up to the wait: refuses buffered plaintext, adds the library's TLS handler to the
   * live connection (which starts the handshake) and returns the handshake's future. Nothing
   * must be left to flush. Closes this transport on any failure.
   *
   * @param settings the handshake's settings
   * @param what the handshake, from {@link #handshakeWhat}, for messages
   * @return the handshake's future, to wait for and then pass to {@link #endHandshake}
   * @throws StartTlsInjectionException if plaintext arrived past the upgrade point
   * @throws TransportClosedException if this transport is closed
   * @throws IOException if the connection has ended or the TLS handler could not be added
   */
  protected final F beginStartTls(TlsSettings settings, String what) throws IOException {
    checkOpen();
    try {
      return state.startTls(settings, Tls.hostName(settings, remote), Tls.port(remote), what);
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
   *
   * @param what the handshake, from {@link #handshakeWhat}, for messages
   * @throws IOException why the handshake did not complete (see {@link ConnectionState#tlsFailure})
   */
  protected final void endHandshake(String what) throws IOException {
    IOException failed = state.tlsFailure(what);
    if (failed != null) {
      if (!(failed instanceof TransportClosedException)) {
        close("failed: " + failed.getMessage());
      }
      throw failed;
    }
  }

  /**
   * After a handshake wait that ran out of time: closes this transport and returns the exception.
   *
   * @param waitedNanos the wait that ran out, from {@link #handshakeWaitNanos}
   * @param what the handshake, from {@link #handshakeWhat}
   * @return the timeout to throw
   */
  protected final IOException handshakeTimedOut(long waitedNanos, String what) {
    return fail(timedOut(waitedNanos, what));
  }

  @Override
  public final Optional<SSLSession> tlsSession() {
    return Optional.ofNullable(state.tlsSession());
  }

  // ---- Time.

  /**
   * The wait allowed for the next operation (see {@link Deadlines#waitNanos}), read from the
   * timeout set now.
   *
   * @param what the operation, for the message
   * @return the wait in nanoseconds, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  protected final long waitNanos(String what) throws TransportTimeoutException {
    return Deadlines.waitNanos(clock, timeout, sessionStartNanos, what);
  }

  /**
   * The exception for a wait of {@code waitedNanos} that ran out (see {@link Deadlines#timedOut}).
   * It does not close this transport: pass it to {@link #fail}.
   *
   * @param waitedNanos the wait that ran out, from {@link #waitNanos}
   * @param what the operation, which starts the message
   * @return the timeout to throw
   */
  protected final TransportTimeoutException timedOut(long waitedNanos, String what) {
    return Deadlines.timedOut(clock, timeout, sessionStartNanos, waitedNanos, what);
  }

  /**
   * The wait allowed for a read of {@code awaited}; past the session deadline, the read's
   * timeout naming what it waited for and what had arrived.
   *
   * @param awaited what the read waits for: {@link Deadlines#line}, {@link Deadlines#bytes} or
   *     {@link Deadlines#ANY_BYTES}
   * @return the wait in nanoseconds, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed
   */
  protected final long readWaitNanos(long awaited) throws TransportTimeoutException {
    try {
      return Deadlines.waitNanos(clock, timeout, sessionStartNanos, "read");
    } catch (TransportTimeoutException e) {
      throw readTimedOut(0L, awaited);
    }
  }

  /**
   * As {@link #readWaitNanos(long)}, at {@code now}, a reading of this transport's clock the caller
   * took for the wait's start: no second reading, and a wait timed from {@code now} ends exactly at
   * the session deadline.
   *
   * @param awaited what the read waits for
   * @param now the reading of this transport's clock (its connector's) the wait starts at
   * @return the wait in nanoseconds, or {@link Deadlines#FOREVER}
   * @throws TransportTimeoutException if the session deadline has already passed at {@code now}
   */
  protected final long readWaitNanos(long awaited, long now) throws TransportTimeoutException {
    try {
      return Deadlines.waitNanosAt(now, timeout, sessionStartNanos, "read");
    } catch (TransportTimeoutException e) {
      throw readTimedOut(0L, awaited);
    }
  }

  /**
   * The exception for a read of {@code awaited} whose wait of {@code waitedNanos} ran out, with
   * what arrived unread (see {@link Deadlines#readTimedOut}). It does not close this transport:
   * pass it to {@link #fail}.
   *
   * @param waitedNanos the wait that ran out, from {@link #readWaitNanos}
   * @param awaited what the read waited for, as given to {@link #readWaitNanos}
   * @return the timeout to throw
   */
  protected final TransportTimeoutException readTimedOut(long waitedNanos, long awaited) {
    return Deadlines.readTimedOut(clock, timeout, sessionStartNanos, waitedNanos, awaited, state.describeUnread());
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

  /**
   * Closes the state and its connection, and has the connector forget them. Only the first close
   * counts: its reason is what later operations report. Safe from any thread; never waits.
   *
   * @param because why, for the message of every later operation ({@code "closed by its owner"})
   */
  protected final void close(String because) {
    if (state.close(because)) {
      forget.run();
    }
  }

  @Override
  public final void whenClosed(Runnable closed) {
    state.whenDisconnected(closed);
  }

  @Override
  public final void whenHeardFrom(Runnable heard) {
    state.heard.whenHeardFrom(heard);
  }

  /**
   * Throws {@link TransportClosedException} if this transport is closed, naming why.
   *
   * @throws TransportClosedException if it is closed
   */
  protected final void checkOpen() throws TransportClosedException {
    String because = state.closedBecause();
    if (because != null) {
      throw new TransportClosedException("transport is closed: " + because);
    }
  }

  /**
   * Closes this transport after a failed operation, if {@link FailurePolicy} says so, and returns
   * the exception to throw. Every operation's failure goes through here, so that every
   * transport closes on the same failures.
   *
   * @param e what the operation failed with
   * @return {@code e}
   */
  protected final IOException fail(IOException e) {
    String because = FailurePolicy.closeReason(e);
    if (because != null) {
      close(because);
    }
    return e;
  }

  /**
   * What the read loops' waiters of both skeletons share: the open check and the failure policy.
   * Each skeleton's waiter adds its own way of waiting for input.
   */
  protected abstract class ReadWaiter {
    /** A waiter over this transport's state. */
    protected ReadWaiter() {}

    /**
     * Throws if this transport is closed.
     *
     * @throws TransportClosedException if it is closed
     */
    public final void checkOpen() throws TransportClosedException {
      ConnectionTransport.this.checkOpen();
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

  @Override
  public String toString() {
    return getClass().getSimpleName() + "{" + remote + (isOpen() ? "" : ", closed") + "}";
  }
}
