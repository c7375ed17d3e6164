package io.weft.transport.mina;

import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.spi.BlockingConnectionTransport;
import io.weft.transport.spi.BlockingWaits;
import io.weft.transport.mina.internal.SessionState;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.function.Consumer;
import org.apache.mina.core.future.IoFuture;

/**
 * A {@link Transport} over one MINA session, TCP or in-VM pipe, that blocks the calling thread:
 * each operation issues the MINA call and waits for its outcome under the {@link Timeout}.
 * This is what {@code SYNC} and {@code THREADS} modes run on MINA; its sibling
 * {@link SuspendingMinaTransport} suspends a continuation instead.
 *
 * <p>Inbound bytes are buffered by Weft's own handler in a bounded per-session buffer (its bound is
 * {@code Builder.inboundBufferLimit}); a read waits only when that buffer cannot satisfy it. A flush writes
 * one {@code IoBuffer} and waits for its {@code WriteFuture}.
 *
 * <p>Every wait refuses at once, with {@link io.weft.transport.BlockingOperationException}, to
 * run on a MINA I/O thread, where it could never end. Open one with {@link MinaConnector#connect};
 * closing the connector closes it.
 */
public final class MinaTransport extends BlockingConnectionTransport<IoFuture> {
  MinaTransport(SessionState state, Timeout timeout, long sessionStartNanos, Consumer<? super SessionState> forget,
      SocketAddress remote, BlockingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits);
  }

  void awaitHandshake(TlsSettings settings) throws IOException {
    super.awaitImplicitHandshake(settings);
  }

  /** The per-session state; for tests in this module. */
  SessionState state() {
    return (SessionState) state;
  }
}
