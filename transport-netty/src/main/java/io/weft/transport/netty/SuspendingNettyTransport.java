package io.weft.transport.netty;

import io.netty.util.concurrent.Future;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnectionTransport;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.netty.internal.ChannelState;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.function.Consumer;
import org.apache.commons.javaflow.api.continuable;

/**
 * A {@link Transport} over one Netty channel (TCP, NIO) that never blocks a thread in
 * {@code CONTINUATIONS} mode: each wait on a Netty future or on inbound data suspends the running
 * continuation through {@link Suspend#await}, and the event-loop callback that ends the wait
 * makes the session ready again. The event loop is the worker: unless the runner resumes on its
 * own workers, the session is resumed right on the event-loop thread that read its bytes, with
 * no hand-off. Off a continuation (SYNC, THREADS, plain code) the same waits block, so it
 * honours the {@link Transport} contract everywhere, like {@link NettyTransport}.
 *
 * <p>Fast path: a read that finds its data buffered returns without suspending. A flush on the
 * channel's own event loop writes to the socket before it returns, so it suspends only when the
 * socket buffer is full; from any other thread it waits for the event loop to write. Either way
 * a flush that returns has handed its bytes to the operating system, and its failure is thrown
 * by the flush itself (the same promise as every Weft transport).
 *
 * <p>Every wait refuses at once, with {@link io.weft.transport.BlockingOperationException}, to
 * run on an event-loop thread outside a session. Open one with
 * {@link SuspendingNettyConnector#connect}; closing the connector closes it. Its waiting methods
 * are rewritten at build time.
 */
public final class SuspendingNettyTransport extends SuspendingConnectionTransport<Future<?>> {
  SuspendingNettyTransport(ChannelState state, Timeout timeout, long sessionStartNanos,
      Consumer<? super ChannelState> forget, SocketAddress remote, SuspendingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits);
  }

  @continuable
  void awaitHandshake(TlsSettings settings) throws IOException {
    super.awaitImplicitHandshake(settings);
  }

  /** The per-channel state; for tests in this module. */
  ChannelState state() {
    return (ChannelState) state;
  }
}
