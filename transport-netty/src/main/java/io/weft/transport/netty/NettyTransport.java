package io.weft.transport.netty;

import io.netty.util.concurrent.Future;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.spi.BlockingConnectionTransport;
import io.weft.transport.spi.BlockingWaits;
import io.weft.transport.netty.internal.ChannelState;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.function.Consumer;

/**
 * A {@link Transport} over one Netty channel (TCP, NIO) that blocks the calling thread: each
 * operation hands its work to the channel's event loop and waits for the outcome under the
 * {@link Timeout}. This is what {@code SYNC} and {@code THREADS} modes run on Netty; its sibling
 * {@link SuspendingNettyTransport} suspends a continuation instead.
 *
 * <p>Inbound bytes are copied by Weft's own handler into a bounded per-channel buffer (its bound is
 * {@code Builder.inboundBufferLimit}); a read waits only when that buffer cannot satisfy it. A flush writes one
 * pooled direct buffer and waits for its write future: when it returns the bytes are in the
 * operating system's socket buffer, and a failure to send them is thrown by the flush itself.
 *
 * <p>Every wait refuses at once, with {@link io.weft.transport.BlockingOperationException}, to
 * run on an event-loop thread, where it could never end. Open one with
 * {@link NettyConnector#connect}; closing the connector closes it.
 */
public final class NettyTransport extends BlockingConnectionTransport<Future<?>> {
  NettyTransport(ChannelState state, Timeout timeout, long sessionStartNanos, Consumer<? super ChannelState> forget,
      SocketAddress remote, BlockingWaits waits) {
    super(state, timeout, sessionStartNanos, forget, remote, waits);
  }

  void awaitHandshake(TlsSettings settings) throws IOException {
    super.awaitImplicitHandshake(settings);
  }

  /** The per-channel state; for tests in this module. */
  ChannelState state() {
    return (ChannelState) state;
  }
}
