package io.weft.transport.spi;

import io.weft.transport.PeerClosedException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.Collection;
import javax.net.ssl.SSLSession;

/**
 * Everything a transport over an I/O library (MINA, Netty) shares with the library's I/O threads:
 * the inbound half ({@link InboundState}: the bounded buffer, end of stream, failure and closed
 * state, wake-ups), and here the outbound half and TLS: the send of a flush and how its failure
 * reads, the library's futures that a wait waits for, and a handshake's outcome. One per
 * connection; a subclass per library ({@code SessionState}, {@code ChannelState}) feeds it the
 * library's events and fills in the hooks. For transport implementations, not protocol code.
 *
 * <p>A wait for one of the library's futures (a write, a connect, a handshake) registers
 * {@link #wakeWhenDone} beside {@link #wakeWhenEnded}, so that it ends when the future is done or
 * the connection ends, whoever ends it: {@link BlockingWaits} and continuations-spi's
 * {@code SuspendingWaits} both do, and both leave it to the caller to tell which ended it, here
 * ({@link #checkWritten}, {@link #tlsFailure}) or in the connector, so that a close reads the
 * same whichever way the caller waited. Each hook is called on a final subclass, so the JIT binds
 * it statically.
 *
 * @param <F> the library's future type ({@code IoFuture}, Netty's {@code Future})
 * @param <M> the type of the library's inbound messages
 */
public abstract class ConnectionState<F, M> extends InboundState<M> {
  /** The negotiated session once a TLS handshake has completed; set by the subclass. */
  protected volatile SSLSession tlsSession;
  /** Who waits for the library's connection to be closed, and whether it is (see ReportsClose). */
  private final CloseNotice closeNotice = new CloseNotice();
  /** The connector's set of tracked states, which this one leaves once reported closed. */
  private volatile Collection<?> tracker;

  /**
   * The state of a connection not yet connected.
   *
   * @param inboundLimit bytes buffered above which reading from the peer is suspended
   * @param reassertsTraffic true when the library can lose a suspend or resume (MINA 2.2): every
   *     message over the limit then asks to suspend again, and a reader that waits re-asserts the
   *     resume every {@link #REASSERT_NANOS}
   * @throws IllegalArgumentException if {@code inboundLimit < 2}
   */
  protected ConnectionState(int inboundLimit, boolean reassertsTraffic) {
    super(inboundLimit, reassertsTraffic);
  }

  // ---- The connection's close, as the library reports it (see ReportsClose).

  /**
   * Runs {@code closed} once the library's connection is closed (its socket closed, not merely
   * asked to close), or at once if it is. At most one watcher; call only once attached.
   *
   * @param closed what to run, once; quick, never blocking
   * @throws IllegalStateException if a watcher was already registered
   * @throws RuntimeException what the library's listener registration threw (an
   *     {@code OutOfMemoryError} too), after {@code closed} has run
   */
  public final void whenDisconnected(Runnable closed) {
    if (closeNotice.register(closed)) {
      try {
        watchDisconnect();
      } catch (RuntimeException | Error e) {
        // No listener, or not sure of one: report the close now rather than leave a watcher
        // that may never hear it (the caller falls back to what it does without a report).
        closeNotice.closed();
        throw e;
      }
    }
  }

  /**
   * Has the library call {@link #disconnected()} once its connection is closed, at once if it
   * is: a listener on its close future. Called once, by the first {@link #whenDisconnected}.
   */
  protected abstract void watchDisconnect();

  /**
   * The library's connection is closed; or the connector will never learn that it is, and opens
   * no new connection (one of its threads died, or it is closed). Runs the watcher, once. Any
   * thread.
   */
  public final void disconnected() {
    // Untracked before the watcher runs: whoever it wakes sees the connector's count without it.
    Collection<?> t = tracker;
    if (t != null) {
      t.remove(this);
    }
    closeNotice.closed();
  }

  /**
   * Whether a watcher waits for this connection's close and has not yet heard it.
   *
   * @return true between {@link #whenDisconnected} and {@link #disconnected()}
   */
  public final boolean isCloseWatched() {
    return closeNotice.isWatched();
  }

  /** The connector tracks this state in {@code tracked} until it is reported closed. */
  final void trackIn(Collection<?> tracked) {
    this.tracker = tracked;
  }

  // ---- The hooks each library fills in.

  /**
   * Throws at once if the current thread must not block for the library's I/O (its own I/O
   * threads), with the exception and message the library's transports use. Called before every
   * blocking wait, so that a wait on an I/O thread fails instead of deadlocking the connection.
   *
   * @param what the operation that would block, for the message
   * @throws io.weft.transport.BlockingOperationException if the current thread must not block
   */
  public abstract void checkMayBlock(String what);

  /**
   * The check of a wait that suspends a continuation where it can and blocks where it cannot:
   * on the library's I/O thread it may wait only inside a session the thread runs.
   *
   * @param what the operation that would wait, for the message
   * @throws io.weft.transport.BlockingOperationException if the current thread may neither
   *     suspend nor block
   */
  public abstract void checkMaySuspend(String what);

  /**
   * Whether reading from the peer is suspended now, as the library says. For tests and
   * diagnostics.
   *
   * @return true while the library is not reading from the socket
   */
  public abstract boolean isReadSuspended();

  /**
   * Whether {@code future} is done, successfully or not. Any thread; never blocks.
   *
   * @param future one of the library's futures from this connection
   * @return true once it is done
   */
  public abstract boolean isDone(F future);

  /**
   * Runs {@code wake} once {@code future} is done: at once, inline, if it is done already (the
   * rule of a wait registration). Quick, never blocking.
   *
   * @param future one of the library's futures from this connection
   * @param wake what to run once; it runs on the library's thread that completes the future, or
   *     on the caller's, so it must itself be quick and never block
   */
  public abstract void wakeWhenDone(F future, Runnable wake);

  /**
   * Bytes handed to the library and not yet written to the socket; 0 when there is no
   * connection. For tests and diagnostics.
   *
   * @return the count, as the library reports it
   */
  public abstract long pendingWriteBytes();

  /**
   * Hands the first {@code length} bytes of {@code src} to the library to write and flush, and
   * returns the write's future; or null when they all went to the socket at once, on the
   * connection's own I/O thread: nothing to wait for. Never waits; {@code src} may be reused as
   * soon as this returns.
   *
   * @param src the bytes to send
   * @param length how many of them, from the start
   * @return the write's future, or null when there is nothing to wait for
   * @throws IOException if nothing can be sent (see {@link #checkWritable})
   */
  public abstract F send(byte[] src, int length) throws IOException;

  /**
   * Whether a write succeeded.
   *
   * @param written a write's future, from {@link #send}
   * @return true once it has completed successfully; false while pending or after a failure
   */
  protected abstract boolean isWritten(F written);

  /**
   * Why a done write failed, as its future says.
   *
   * @param written a write's future that is done and not written
   * @return the failure, or null if the future says nothing
   */
  protected abstract Throwable failureOf(F written);

  /**
   * Records {@code cause}, a write's own failure, where the library reports it nowhere else
   * (Netty: only on the write's future). By default nothing.
   *
   * @param cause the write's failure, or null when the write did not complete
   */
  protected void writeFailed(Throwable cause) {}

  /**
   * STARTTLS, the library's part: checks that the connection can still send, refuses buffered
   * plaintext, adds the library's TLS handler to the live connection (which starts the
   * handshake) and returns the handshake's future, which a failure or a close does not always
   * complete (wait with a wait that also ends with the connection, then ask
   * {@link #tlsFailure}). {@code host} is the name to verify and send (SNI); {@code what} names
   * the handshake in messages.
   *
   * @param settings the handshake's settings
   * @param host the name to verify and send, from {@link Tls#hostName}
   * @param port the peer's port, from {@link Tls#port}, or -1
   * @param what the handshake, from {@link Tls#what}
   * @return the handshake's future
   * @throws StartTlsInjectionException if bytes are buffered unread
   * @throws IllegalStateException if a handshake has already started, or the connection cannot
   *     speak TLS
   * @throws IOException if the connection has ended, or the TLS handler could not be made
   */
  public abstract F startTls(TlsSettings settings, String host, int port, String what) throws IOException;

  /**
   * The handshake in progress or done: with implicit TLS, the one the connect began, which the
   * transport waits for before its first operation.
   *
   * @return the handshake's future, or null when none has started
   */
  public abstract F handshake();

  /**
   * Why a TLS handshake failed as the library reported it, when that says more than the
   * connection's own failure; null otherwise (the default). Called under the lock.
   *
   * @return the library's handshake failure, or null
   */
  protected Throwable handshakeFailure() {
    return null;
  }

  /**
   * True when {@code writeFailure}, a write's own failure, is the library's way of saying the
   * connection was already closed (by the peer): the send failed because of that close.
   *
   * @param writeFailure a write's own failure
   * @return true if it means the peer had closed the connection, to be reported as
   *     {@link PeerClosedException}
   */
  protected abstract boolean isClosedConnection(Throwable writeFailure);

  // ---- For subclasses.

  /**
   * Has the buffer watch the start of the stream for a TLS alert from {@code peer} (see
   * {@link InboundBuffer#expectPlaintextFrom}). Call it before the connection's first bytes can
   * arrive.
   *
   * @param peer the peer's address, named in the exception if it answers with an alert
   */
  protected final void expectPlaintextFrom(SocketAddress peer) {
    lock.lock();
    try {
      inbound.expectPlaintextFrom(peer);
    } finally {
      lock.unlock();
    }
  }

  /**
   * The refusal of a STARTTLS upgrade for plaintext that arrived past the upgrade point.
   *
   * @param injected the plaintext, quoted (escaped and cut short) in the message
   * @return the exception, for the caller to throw or record as the failure
   */
  protected static StartTlsInjectionException injection(byte[] injected) {
    return new StartTlsInjectionException("refusing STARTTLS: " + injected.length
        + " plaintext bytes arrived after the upgrade point, before the handshake: "
        + ProtocolViolationException.quote(injected)
        + " (a server never sends them; an attacker injecting commands does)");
  }

  /**
   * The first of a STARTTLS's checks, before whether the connection can still send: from the
   * upgrade point the stream is TLS, so bytes buffered unread are refused as an injection even
   * when the peer has closed or reset the connection since. An attacker's plaintext followed by a
   * close is still an injection, and a blocking socket, which learns of the close only by
   * reading, reports it so: every transport says the same. Nothing is checked once the owner has
   * closed the transport or a handshake has begun (those are refused as such).
   *
   * @throws StartTlsInjectionException if anything is buffered; the caller closes the transport
   */
  protected final void refuseInjectedPlaintext() throws StartTlsInjectionException {
    lock.lock();
    try {
      if (closedBecause() == null && handshake() == null) {
        inbound.stopExpectingPlaintext();
        checkNothingBuffered();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Under the lock: refuses, as an injection, bytes buffered unread at a STARTTLS upgrade point.
   *
   * @throws StartTlsInjectionException if anything is buffered
   */
  protected final void checkNothingBuffered() throws StartTlsInjectionException {
    if (inbound.size() != 0) {
      throw injection(inbound.takeAll());
    }
  }

  // ---- TLS.


  /**
   * The negotiated TLS session. Any thread.
   *
   * @return the session, or null before a handshake has completed
   */
  public final SSLSession tlsSession() {
    return tlsSession;
  }

  @Override
  protected final SSLSession handshakenSession() {
    return tlsSession;
  }

  /**
   * After a handshake wait ended (not by time): null if the handshake completed; otherwise why
   * not, as the caller reports it: the injection refused, the transport closed, or a
   * {@link io.weft.transport.TlsHandshakeException} saying what failed.
   *
   * @param what the handshake, from {@link Tls#what}, for the message
   * @return null on success, otherwise the exception to throw (new on each call)
   */
  public final IOException tlsFailure(String what) {
    if (tlsSession != null) {
      return null;
    }
    lock.lock();
    try {
      if (failure instanceof StartTlsInjectionException) {
        return new StartTlsInjectionException(failure.getMessage());
      }
      String because = closedBecause();
      if (because != null) {
        return new TransportClosedException("transport closed during " + what + ": " + because);
      }
      Throwable cause = handshakeFailure();
      if (cause == null) {
        // The failure that closed the connection says more than "closed".
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

  // ---- The writer's side.


  /**
   * Throws if nothing can be sent any more: closed by its owner
   * ({@link TransportClosedException}), failed (the failure, as a reader sees it), or closed by
   * the peer ({@link PeerClosedException}). Never waits.
   *
   * @param what the operation, for the message ({@code "write"}, {@code "flush"})
   * @throws IOException why nothing can be sent
   */
  public final void checkWritable(String what) throws IOException {
    IOException e = endedException(what, null);
    if (e != null) {
      throw e;
    }
  }

  /**
   * Why a send that did not complete failed, from this state and the write's own failure
   * ({@code cause}, may be null); null if the connection has not ended and {@code cause} says
   * nothing of its end (see {@link #isClosedConnection}).
   */
  private IOException endedException(String what, Throwable cause) {
    lock.lock();
    try {
      String because = closedBecause();
      if (because != null) {
        return new TransportClosedException("transport closed during " + what + ": " + because);
      }
      if (failure != null) {
        return failureException();
      }
      if (hasEnded() || (cause != null && isClosedConnection(cause))) {
        return new PeerClosedException("the peer closed the connection; " + what + " not sent");
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * After the wait for {@code written}, a write's future, ended (not by time): returns if it was
   * written; otherwise throws why not: the connection's end or failure, or the write's own.
   *
   * @param written the write's future, from {@link #send}
   * @throws IOException why the bytes were not written
   */
  public final void checkWritten(F written) throws IOException {
    if (isWritten(written)) {
      return;
    }
    Throwable cause = isDone(written) ? failureOf(written) : null;
    writeFailed(cause);
    IOException ended = endedException("flush", cause);
    if (ended != null) {
      throw ended;
    }
    throw new IOException("write failed: " + cause, cause);
  }

  // ---- Diagnostics.


  /**
   * Bytes buffered now. For tests and diagnostics.
   *
   * @return the count, read under the lock
   */
  public final int buffered() {
    lock.lock();
    try {
      return inbound.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The capacity of the inbound buffer's array now. For tests and diagnostics: it shows that the
   * buffer shrinks back once drained.
   *
   * @return the array's length in bytes
   */
  public final int bufferCapacity() {
    lock.lock();
    try {
      return inbound.capacity();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The most bytes ever buffered at once. For tests and diagnostics: it shows that backpressure
   * held the buffer near its limit.
   *
   * @return the high-water mark in bytes
   */
  public final int highWaterMark() {
    lock.lock();
    try {
      return highWaterMark;
    } finally {
      lock.unlock();
    }
  }
}
