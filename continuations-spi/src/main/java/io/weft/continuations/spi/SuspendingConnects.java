package io.weft.continuations.spi;

import io.weft.transport.Timeout;
import io.weft.transport.spi.ConnectionState;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.Objects;
import org.apache.commons.javaflow.api.continuable;

/**
 * The connect of a suspending connector: the steps of transport-api's {@link ConnectorCore}, the
 * same as its blocking connect, with waits that suspend the running continuation (and block off
 * one) through {@link SuspendingWaits}: the connect's future, then, with TLS, the handshake. A
 * connect that runs out of time, or that its session ends before it has connected (the session's
 * cancel or deadline, the connector's close), is cancelled, so the library closes its socket
 * rather than leave it retrying its SYN for minutes.
 * Rewritten by this module's build.
 */
public final class SuspendingConnects {
  /** A connect, in the message of a wait refused on an I/O thread outside a session. */
  private static final String A_CONNECT = "a connect";

  private SuspendingConnects() {}

  /**
   * Connects to {@code remote} over {@code core}, and with TLS does the handshake, suspending
   * (or, off a continuation, blocking) for each.
   *
   * @param <F> the library's future type
   * @param <S> the library's state type
   * @param <T> the transport type
   * @param core the connector's skeleton
   * @param waits the connector's waits, whose clock the connect and the session deadline read
   * @param remote the peer's address
   * @param timeout the transport's timeout
   * @param opener makes the transport over the connected state
   * @return the transport
   * @throws IOException why the connect failed
   * @throws IllegalStateException in a Weft session whose run reads another clock than
   *     {@code waits} (see {@code Ticker})
   * @throws io.weft.transport.BlockingOperationException on the library's I/O thread outside a
   *     session
   */
  @continuable
  public static <F, S extends ConnectionState<F, ?>, T extends SuspendingConnectionTransport<F>> T connect(
      ConnectorCore<F, S> core, SuspendingWaits waits, SocketAddress remote, Timeout timeout,
      ConnectorCore.Opener<S, T> opener) throws IOException {
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(timeout, "timeout");
    Ticker clock = waits.ticker();
    // The connect's words ("connect to " + its address, ConnectorCore.connectWhat) are built only
    // for a message: a connect that succeeds never formats its address.
    Suspend.checkClock(clock, remote);
    long start = clock.nanoTime();
    long wait = Deadlines.connectWaitNanos(clock, timeout, start, remote);
    S state = core.register(remote);
    F future = null;
    try {
      // The library's I/O threads outside a session refuse at once, before the connect is issued;
      // the wait below checks again under the same words, and cannot refuse after this passed.
      state.checkMaySuspend(A_CONNECT);
      future = core.startConnect(remote, state);
      if (!waits.awaitDone(state, future, wait, A_CONNECT)) {
        core.cancelConnect(future);
        throw Deadlines.timedOut(clock, timeout, start, wait, ConnectorCore.connectWhat(remote));
      }
      T transport = opener.open(core.connected(future, state, remote), timeout, start, core.forgetClosed(), remote);
      if (core.tls().isPresent()) {
        transport.awaitImplicitHandshake(core.tls().get());
      }
      return transport;
    } catch (IOException | RuntimeException e) {
      if (future != null && !state.isDone(future)) {
        // Ended before it connected (the session's deadline, its cancel, the connector's close):
        // the connect is cancelled too, so its socket does not stay in SYN_SENT for minutes.
        core.cancelConnect(future);
      }
      core.abandon(state, "connect failed: " + e);
      throw e;
    }
  }
}
