package io.weft.transport.netty;

import io.weft.continuations.spi.SuspendingConnects;
import io.weft.continuations.spi.AbstractSuspendingConnector;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.javaflow.api.continuable;

/**
 * Opens {@link SuspendingNettyTransport}s: TCP connections ({@link InetSocketAddress}) over
 * Netty's NIO transport whose waits suspend the running continuation. The connector
 * {@code CONTINUATIONS} mode needs; it works in every other mode too, blocking there. A connect
 * suspends on Netty's connect future.
 *
 * <p>Its event-loop threads are the continuation runtime's workers too: a session whose bytes
 * (or write completion) arrive on an event loop is resumed right there, in the same turn of the
 * loop, unless the runner is told to resume on its own workers
 * ({@code Mode.continuations(k).resumeOnWorkers()}, for sessions that do heavy work between
 * waits). So one event-loop thread by default, as a Netty client for this kind of load is
 * usually set up: it does all the work of its sessions without a hand-off, and more loops than
 * cores only add context switches. Set {@link Builder#eventLoopThreads} to the cores available
 * when the sessions' own work needs more than one core.
 *
 * <p>Built with {@link Builder#tls}, every connect also does a TLS handshake, which suspends like
 * any other wait. It owns one {@link NettyConnector} (its event loops, its open channels);
 * {@link #close()} closes that, and with it every transport still open.
 *
 * <pre>{@code
 * try (SuspendingNettyConnector connector = SuspendingNettyConnector.tcp();
 *      SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1))
 *          .connector(connector).address(address).instrument("com.example.client").build()) {
 *   runner.run(MyTask.class, 10_000);
 * }
 * }</pre>
 */
public final class SuspendingNettyConnector extends AbstractSuspendingConnector implements Clocked {
  private final NettyConnector netty;

  private SuspendingNettyConnector(NettyConnector netty, long spinNanos) {
    super(netty.core(), new SuspendingWaits(spinNanos, new LongAdder(), new LongAdder(), new LongAdder(), netty.ticker()));
    this.netty = netty;
  }
  /**
   * The clock of this connector's connects, waits and session deadlines, set by the builder's
   * {@code ticker(...)}: {@link #suspendingWaitsTicker()}.
   *
   * @return the clock
   */
  @Override
  public Ticker ticker() {
    return suspendingWaitsTicker();
  }


  /**
   * A TCP connector with default options: one event-loop thread.
   *
   * @return a new connector, which the caller closes
   */
  public static SuspendingNettyConnector tcp() {
    return builder().tcp();
  }

  /**
   * Options for a connector.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects to {@code remote}. Suspends (or, off a continuation, blocks) until the connect is
   * done, and with TLS until the handshake is.
   *
   * @throws IllegalArgumentException if {@code remote} is not an {@link InetSocketAddress}
   * @throws io.weft.transport.BlockingOperationException if called on an event-loop thread
   *     outside a session
   */
  @Override
  @continuable
  public SuspendingNettyTransport connect(SocketAddress remote, Timeout timeout) throws IOException {
    SuspendingWaits waits = waits();
    return SuspendingConnects.connect(netty.core(), waits, remote, timeout, (state, t, start, forget, address) ->
        new SuspendingNettyTransport(state, t, start, forget, address, waits));
  }


  /**
   * The number of event-loop threads this connector runs.
   *
   * @return the size of its event-loop group
   */
  public int eventLoopThreads() {
    return netty.eventLoopThreads();
  }







  @Override
  public String toString() {
    return "Suspending" + netty;
  }

  /**
   * Options for a {@link SuspendingNettyConnector}: those of every suspending connector
   * ({@link AbstractSuspendingConnector.Builder#tls}, {@link AbstractSuspendingConnector.Builder#inboundBufferLimit},
   * {@link AbstractSuspendingConnector.Builder#spinBeforeSuspend}) and Netty's event-loop count;
   * build with {@link #tcp()}.
   */
  public static final class Builder extends AbstractSuspendingConnector.Builder<Builder> {
    private final NettyConnector.Builder netty;

    private Builder() {
      this(NettyConnector.builder());
    }

    private Builder(NettyConnector.Builder netty) {
      super(netty);
      this.netty = netty;
    }

    /**
     * Event-loop threads; default (0) one (see the class javadoc for why).
     *
     * @param count the number of event-loop threads; 0 for the default
     * @return this builder
     * @throws IllegalArgumentException if {@code count < 0}
     */
    public Builder eventLoopThreads(int count) {
      netty.eventLoopThreads(count);
      return this;
    }

    /**
     * Builds a TCP connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public SuspendingNettyConnector tcp() {
      return new SuspendingNettyConnector(netty.build(1, "c"), spinNanos());
    }
  }
}
