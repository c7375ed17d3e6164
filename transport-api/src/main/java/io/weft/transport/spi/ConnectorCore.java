package io.weft.transport.spi;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportClosedException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.util.ArrayList;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The skeleton of a connector over an I/O library: the set of connections it opened and still
 * tracks, the steps of a connect and its close. Each library (MINA, Netty) extends it with what
 * only it knows: how to make a connection's state, issue the connect, read the connect's
 * future and shut its threads down. Its blocking connect is {@link #connect(SocketAddress, Timeout,
 * Opener)}; continuations-spi's {@code SuspendingConnects} runs the same steps with a wait that
 * suspends.
 *
 * <p>The steps of a connect, whichever way it waits: {@link #register} a new state (tracked, so
 * that {@link #close()} closes it), {@link #startConnect}, wait for the future (or the state's
 * end), then {@link #connected} once it is done, or {@link #abandon} on any failure.
 *
 * <p>Lifecycle: open from construction; {@link #close()} closes every tracked connection, then
 * {@link #shutdown()} ends the library's threads. Thread-safe.
 *
 * @param <F> the library's future type
 * @param <S> the library's state type
 */
public abstract class ConnectorCore<F, S extends ConnectionState<F, ?>> {
  private final Set<S> live = ConcurrentHashMap.newKeySet();
  // A closed transport's state stays tracked while a watcher waits for its close (see
  // ReportsClose): the library closes the socket later, and if its thread dies first, only
  // closeAll can report that close.
  private final Consumer<S> forgetClosed = state -> {
    if (!state.isCloseWatched()) {
      live.remove(state);
    }
  };
  private final TlsSettings tls;
  private final BlockingWaits waits;
  private volatile boolean closed;

  /**
   * A skeleton with no connection yet, open.
   *
   * @param tls the TLS settings of every connect, or null for plaintext
   * @param ticker the clock of the blocking connect and of the blocking waits and session deadlines
   *     of its transports ({@link #blockingWaits()})
   */
  protected ConnectorCore(TlsSettings tls, Ticker ticker) {
    this.tls = tls;
    this.waits = new BlockingWaits(ticker);
  }

  /**
   * Makes the transport over a connected state; a connector's transport constructor.
   *
   * @param <S> the library's state type
   * @param <T> the transport type
   */
  @FunctionalInterface
  public interface Opener<S, T> {
    /**
     * Opens the transport over {@code state}, once its connect is done.
     *
     * @param state the connected state
     * @param timeout the transport's timeout
     * @param sessionStartNanos when the connect began, on the connector's clock
     *     ({@code blockingWaits().ticker()}, or its suspending waits' clock), for the session
     *     deadline: the transport must read its deadline on that clock (the {@code ConnectionTransport}
     *     constructor that takes a clock)
     * @param forget tells the connector that the transport closed
     * @param remote the peer's address
     * @return the transport
     */
    T open(S state, Timeout timeout, long sessionStartNanos, Consumer<? super S> forget, SocketAddress remote);
  }

  // ---- What each library fills in.

  /**
   * Throws if {@code remote} is of the wrong kind for this connector.
   *
   * @param remote the address a caller asked to connect to
   * @throws IllegalArgumentException if it is
   */
  protected abstract void checkAddress(SocketAddress remote);

  /**
   * A new state for one connection, not yet tracked.
   *
   * @return the state, made on the connecting thread before the library connects
   */
  protected abstract S newState();

  /**
   * Why this connector can no longer connect although it is not closed (one of its threads
   * died), or null while it can. By default null.
   *
   * @return the reason, or null
   */
  protected String broken() {
    return null;
  }

  /**
   * Issues the connect of {@code state} to {@code remote}; the library's connection is bound to
   * {@code state} before any of its events, and with TLS the handshake starts when it connects.
   *
   * @param remote the peer's address
   * @param state the connection's state
   * @return the connect's future
   */
  public abstract F startConnect(SocketAddress remote, S state);

  /**
   * Whether a done connect future succeeded.
   *
   * @param future the connect's future
   * @return true if connected
   */
  protected abstract boolean isConnected(F future);

  /**
   * Why a done connect future failed, unwrapped from the library's own wrapping so that the
   * JDK's exception shows; null when it was cancelled.
   *
   * @param future the connect's future
   * @return the cause, or null
   */
  protected abstract Throwable connectCause(F future);

  /**
   * Cancels a connect that ran out of time.
   *
   * @param future the connect's future
   */
  public abstract void cancelConnect(F future);

  /** Ends the library's threads, once, after every tracked connection was closed. */
  protected abstract void shutdown();

  // ---- The steps of a connect.

  /**
   * The blocking connect: connects to {@code remote}, and with TLS does the handshake, blocking
   * the calling thread.
   *
   * @param <T> the transport type
   * @param remote the peer's address
   * @param timeout the transport's timeout
   * @param opener makes the transport over the connected state
   * @return the transport
   * @throws IOException why the connect failed
   */
  public final <T extends BlockingConnectionTransport<F>> T connect(SocketAddress remote, Timeout timeout,
      Opener<S, T> opener) throws IOException {
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(timeout, "timeout");
    Ticker clock = waits.ticker();
    long start = clock.nanoTime();
    String what = connectWhat(remote);
    long wait = Deadlines.waitNanos(clock, timeout, start, what);
    S state = register(remote);
    try {
      // The library's I/O threads refuse at once, before the connect is issued.
      state.checkMayBlock("a connect");
      F future = startConnect(remote, state);
      if (!waits.awaitDone(state, future, wait, what)) {
        cancelConnect(future);
        throw Deadlines.timedOut(clock, timeout, start, wait, what);
      }
      T transport = opener.open(connected(future, state, remote), timeout, start, forgetClosed, remote);
      if (tls != null) {
        transport.awaitImplicitHandshake(tls);
      }
      return transport;
    } catch (IOException | RuntimeException e) {
      abandon(state, "connect failed: " + e);
      throw e;
    }
  }

  /**
   * Creates and tracks the state of a new connection, so that {@link #close()} closes it.
   *
   * @param remote the peer's address
   * @return the new state
   * @throws IllegalArgumentException if {@code remote} is of the wrong kind
   * @throws TransportClosedException if this connector is closed or broken
   */
  public final S register(SocketAddress remote) throws TransportClosedException {
    checkAddress(remote);
    if (closed) {
      throw new TransportClosedException("connector is closed");
    }
    String why = broken();
    if (why != null) {
      throw new TransportClosedException("connector is broken: " + why);
    }
    S state = newState();
    state.trackIn(live);
    live.add(state);
    if (closed) {
      abandon(state, "connector closed during connect");
      throw new TransportClosedException("connector closed during connect");
    }
    return state;
  }

  /**
   * After the wait for the connect's future ended (not by time): returns {@code state} if it
   * connected, or throws why not. Both ways of waiting end the wait when the state is closed, and
   * report that close here, the same way. The messages name the connect as
   * {@link #connectWhat(SocketAddress)} does, built only when one is thrown.
   *
   * @param future the connect's future
   * @param state the connection's state
   * @param remote the address connected to
   * @return {@code state}
   * @throws IOException the connect's failure, e.g. a {@link ConnectException} naming the address;
   *     with TLS, an engine that refused to start (no protocol or suite both sides allow) is a
   *     {@link io.weft.transport.TlsHandshakeException} naming host and port
   * @throws TransportClosedException if this connector or the state was closed meanwhile
   */
  public final S connected(F future, S state, SocketAddress remote) throws IOException {
    String because = state.closedBecause();
    if (because != null) {
      throw new TransportClosedException("transport closed during " + connectWhat(remote) + ": " + because);
    }
    if (closed) {
      throw new TransportClosedException("connector closed during " + connectWhat(remote));
    }
    if (!isConnected(future)) {
      Throwable cause = connectCause(future);
      if (tls != null && Tls.find(cause, javax.net.ssl.SSLException.class) != null) {
        // The engine refused before the handshake began ("No appropriate protocol"): a failed
        // handshake like any other, naming the host and port.
        throw Tls.handshakeFailed(Tls.what(Tls.hostName(tls, remote), Tls.port(remote)), cause);
      }
      throw connectFailure(connectWhat(remote), cause);
    }
    return state;
  }

  /**
   * The words that name a connect in its messages, {@code "connect to /127.0.0.1:6379"}: the
   * start of a failed connect's message (docs/errors.md). Built only for a message: a connect
   * that succeeds never formats its address.
   *
   * @param remote the address connected to
   * @return {@code "connect to " + remote}
   */
  public static String connectWhat(SocketAddress remote) {
    return "connect to " + remote;
  }

  /**
   * Gives up a connect: closes the state (and the connection, if it connects after all).
   *
   * @param state the connection's state
   * @param because why, for later operations' messages
   */
  public final void abandon(S state, String because) {
    state.close(because);
    live.remove(state);
  }

  /**
   * The blocking waits of this connector's transports, on its ticker.
   *
   * @return the waits
   */
  public final BlockingWaits blockingWaits() {
    return waits;
  }

  /**
   * What a transport calls once it has closed: this connector stops tracking its state.
   *
   * @return the consumer handed to every transport
   */
  public final Consumer<S> forgetClosed() {
    return forgetClosed;
  }

  /**
   * The TLS settings every connect uses.
   *
   * @return the settings, or empty for plaintext
   */
  public final Optional<TlsSettings> tls() {
    return Optional.ofNullable(tls);
  }

  private static IOException connectFailure(String what, Throwable cause) {
    if (cause == null) {
      return new IOException(what + " failed (cancelled)");
    }
    if (cause instanceof ConnectException) {
      return ConnectFailures.naming(what, (ConnectException) cause);
    }
    if (cause instanceof UnknownHostException || cause instanceof UnresolvedAddressException) {
      // A name that did not resolve: Netty's resolver's failure, or MINA's channel refusing an
      // unresolved address. One type and message for both (docs/errors.md, "host not resolved").
      return ConnectFailures.unknownHost(what, cause);
    }
    if (cause instanceof IOException) {
      return (IOException) cause;
    }
    return new IOException(what + " failed: " + cause, cause);
  }

  // ---- Closing.

  /**
   * How many connections this connector opened that are still open (or connecting), with
   * those closed by their transport whose close a watcher ({@link ReportsClose}) waits for and
   * the library has not yet reported.
   *
   * @return the number of tracked connections
   */
  public final int openCount() {
    return live.size();
  }

  /**
   * Closes every tracked connection with {@code because}, and stops tracking them; the connector
   * stays open. For a connector that can no longer serve them (one of its threads died), and
   * on close. Each connection's close watcher ({@link ReportsClose}) hears at once, whether or
   * not the library gets to close it: the connector opens no new connection now. A close that
   * throws stops none of the others: the first error is thrown once all are closed.
   *
   * @param because why, for later operations' messages
   */
  public final void closeAll(String because) {
    Throwable first = null;
    for (S state : new ArrayList<>(live)) {
      try {
        state.close(because);
      } catch (RuntimeException | Error e) {
        // A close made again after one that threw (a library close out of heap) can throw too:
        // the states after it are closed and reported all the same, and the first error is thrown.
        if (first == null) {
          first = e;
        }
      } finally {
        live.remove(state);
        // The library may never close it now (a dead thread); whoever waits for that must not.
        state.disconnected();
      }
    }
    if (first instanceof Error) {
      throw (Error) first;
    }
    if (first != null) {
      throw (RuntimeException) first;
    }
  }

  /**
   * Closes every connection still open, then {@link #shutdown()}. A second call does nothing.
   */
  public final void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    closeAll("connector closed");
    shutdown();
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if closed
   */
  public final boolean isClosed() {
    return closed;
  }
}
