package io.weft.transport.mina;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnectionTransport;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.mina.internal.SessionState;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.function.Consumer;
import org.apache.commons.javaflow.api.continuable;
import org.apache.mina.core.future.IoFuture;

/**
 * A {@link Transport} over one MINA session, TCP or in-VM pipe, that never blocks a thread in
 * {@code CONTINUATIONS} mode: each wait on a MINA {@code IoFuture} or on inbound data suspends
 * the running continuation through {@link Suspend#await}, and the I/O event that ends the wait
 * makes the session ready again. Off a continuation (SYNC, THREADS, plain code) the same waits
 * block, so it honours the {@link Transport} contract everywhere, like {@link MinaTransport}.
 *
 * <p>Fast path: a read that finds its data buffered, or a flush whose future is already done
 * (the in-VM pipe completes writes inline), returns without suspending. A connector may be
 * configured to spin briefly before suspending (see
 * {@link SuspendingMinaConnector.Builder#spinBeforeSuspend}).
 *
 * <p>Every wait refuses at once, with {@link io.weft.transport.BlockingOperationException}, to
 * run on a MINA I/O thread outside a session. Open one with {@link SuspendingMinaConnector#connect};
 * closing the connector closes it. Its waiting methods are rewritten at build time.
 */
public final class SuspendingMinaTransport extends SuspendingConnectionTransport<IoFuture> {
  SuspendingMinaTransport(SessionState state, Timeout timeout, long sessionStartNanos,
      Consumer<? super SessionState> forget, SocketAddress remote, SuspendingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits);
  }

  @continuable
  void awaitHandshake(TlsSettings settings) throws IOException {
    super.awaitImplicitHandshake(settings);
  }

  /** The per-session state; for tests in this module. */
  SessionState state() {
    return (SessionState) state;
  }
}
