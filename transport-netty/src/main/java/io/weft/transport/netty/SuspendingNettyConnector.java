package io.weft.transport.netty;

import io.weft.continuations.spi.SuspendingConnects;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
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
public final class SuspendingNettyConnector implements SuspendingConnector {
  private final NettyConnector netty;
  private final SuspendingWaits waits;

  private SuspendingNettyConnector(NettyConnector netty, long spinNanos) {
    this.netty = netty;
    this.waits = new SuspendingWaits(spinNanos, new LongAdder(), new LongAdder(), new LongAdder());
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
    return SuspendingConnects.connect(netty.core(), waits, remote, timeout, (state, t, start, forget, address) ->
        new SuspendingNettyTransport(state, t, start, forget, address, waits));
  }

  /**
   * How many transports this connector opened that are still open (or connecting).
   *
   * @return the number of open transports
   */
  public int openCount() {
    return netty.openCount();
  }

  /**
   * The number of event-loop threads this connector runs.
   *
   * @return the size of its event-loop group
   */
  public int eventLoopThreads() {
    return netty.eventLoopThreads();
  }

  /**
   * Waits that were not needed: data already buffered, or a future already done.
   *
   * @return the count of waits that did not wait
   */
  public long immediate() {
    return waits.immediate().sum();
  }

  /**
   * Waits that ended during the brief spin before suspending.
   *
   * @return the count of waits that ended while spinning
   */
  public long spun() {
    return waits.spun().sum();
  }

  /**
   * The spin before suspending, in nanoseconds; 0 when off.
   *
   * @return the spin in nanoseconds
   */
  public long spinBeforeSuspendNanos() {
    return waits.spinNanos();
  }

  /**
   * Calls to {@code Suspend.await}: suspensions in a continuation (bar the rare one woken during
   * its own registration), blocked waits elsewhere.
   *
   * @return the count of calls to {@code Suspend.await}
   */
  public long suspends() {
    return waits.suspends().sum();
  }

  /**
   * Closes every transport still open, shuts the event loops down and waits (up to 10 s) for
   * them to end. A second call does nothing.
   */
  @Override
  public void close() {
    netty.close();
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if the connector is closed
   */
  public boolean isClosed() {
    return netty.isClosed();
  }

  @Override
  public String toString() {
    return "Suspending" + netty;
  }

  /** Options for a {@link SuspendingNettyConnector}; build with {@link #tcp()}. */
  public static final class Builder {
    private final NettyConnector.Builder netty = NettyConnector.builder();
    private long spinNanos;

    private Builder() {}

    /**
     * As {@link NettyConnector.Builder#inboundBufferLimit}. Default 64 KiB.
     *
     * @param bytes the limit in bytes, at least 2
     * @return this builder
     */
    public Builder inboundBufferLimit(int bytes) {
      netty.inboundBufferLimit(bytes);
      return this;
    }

    /**
     * As {@link NettyConnector.Builder#tls}: every connect does a TLS handshake, suspending.
     *
     * @param tls the TLS settings of every connect
     * @return this builder
     */
    public Builder tls(TlsSettings tls) {
      netty.tls(tls);
      return this;
    }

    /**
     * Event-loop threads; default (0) one (see the class javadoc for why).
     *
     * @param count the number of event-loop threads; 0 for the default
     * @return this builder
     */
    public Builder eventLoopThreads(int count) {
      netty.eventLoopThreads(count);
      return this;
    }

    /**
     * Before suspending, spin for up to {@code time} waiting for the future to complete or the
     * data to arrive (yielding the CPU now and then), as {@code SuspendingMinaConnector}'s option
     * of the same name: off by default (0), and never on an event loop, where the spin would hold
     * up the reads it waits for. So it applies to blocking callers and to sessions run on the
     * runner's workers ({@code resumeOnWorkers()}).
     *
     * @throws IllegalArgumentException if {@code time < 0}
     * @param time the longest spin; 0 for none
     * @param unit the unit of {@code time}
     * @return this builder
     */
    public Builder spinBeforeSuspend(long time, TimeUnit unit) {
      if (time < 0L) {
        throw new IllegalArgumentException("time < 0: " + time);
      }
      this.spinNanos = unit.toNanos(time);
      return this;
    }

    /**
     * Builds a TCP connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public SuspendingNettyConnector tcp() {
      return new SuspendingNettyConnector(new NettyConnector(netty, 1, "c"), spinNanos);
    }
  }
}
