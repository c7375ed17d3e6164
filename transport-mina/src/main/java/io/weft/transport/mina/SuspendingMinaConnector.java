package io.weft.transport.mina;

import io.weft.continuations.spi.SuspendingConnects;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.mina.internal.ThreadCounts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.apache.commons.javaflow.api.continuable;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * Opens {@link SuspendingMinaTransport}s: MINA sessions, TCP ({@link InetSocketAddress}) or
 * in-VM pipe ({@link VmPipeAddress}), whose waits suspend the running continuation. The
 * connector {@code CONTINUATIONS} mode needs; it works in every other mode too, blocking there.
 * A connect suspends on MINA's {@code ConnectFuture}.
 *
 * <p>Its I/O processor threads are the continuation runtime's workers too: a session whose bytes
 * (or write completion) arrive on a processor is resumed right there, unless the runner is told to
 * resume on its own workers ({@code Mode.continuations(k).resumeOnWorkers()}). MINA's default is
 * one processor more than the cores. {@link Builder#processorCount}(1), as
 * {@code SuspendingNettyConnector} has one event loop, measured (a reconnect per session against
 * redis-server on 2 cores, two interleaved rounds): at 10,000 sessions 1.2x the round trips/s at
 * 0.85x the CPU per round trip, at 100 sessions 0.8x at 1.2x, and the context switches per round
 * trip the same at both. So the default stays MINA's; pick one processor for many sessions.
 *
 * <p>Built with {@link Builder#tls}, every connect also does a TLS handshake, which suspends like
 * any other wait.
 *
 * <p>It owns one {@link MinaConnector} (its threads, its open sessions); {@link #close()}
 * closes that, and with it every transport still open.
 *
 * <pre>{@code
 * try (SuspendingMinaConnector connector = SuspendingMinaConnector.vmPipe();
 *      SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1))
 *          .connector(connector).address(address).instrument("com.example.client").build()) {
 *   runner.run(MyTask.class, 10_000);
 * }
 * }</pre>
 *
 * <p>Counters ({@link #immediate()}, {@link #spun()}, {@link #suspends()}) tell how waits
 * ended, for tuning: kept per I/O thread (other threads: striped adders), summed when read.
 */
public final class SuspendingMinaConnector implements SuspendingConnector {
  private final MinaConnector mina;
  private final SuspendingWaits waits;

  private SuspendingMinaConnector(MinaConnector mina, long spinNanos) {
    this.mina = mina;
    ThreadCounts counts = mina.counts();
    this.waits = new SuspendingWaits(spinNanos, counts.counter(0), counts.counter(1), counts.counter(2));
  }

  /**
   * A TCP connector with default options.
   *
   * @return a new connector, which the caller closes
   */
  public static SuspendingMinaConnector tcp() {
    return builder().tcp();
  }

  /**
   * An in-VM pipe connector with default options.
   *
   * @return a new connector, which the caller closes
   */
  public static SuspendingMinaConnector vmPipe() {
    return builder().vmPipe();
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
   * Connects to {@code remote}: an {@link InetSocketAddress} for a TCP connector, a
   * {@link VmPipeAddress} for an in-VM one. Suspends (or, off a continuation, blocks) until the
   * connect is done.
   *
   * @throws IllegalArgumentException if {@code remote} is of the wrong kind
   * @throws IllegalStateException if called on a MINA I/O thread
   */
  @Override
  @continuable
  public SuspendingMinaTransport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return SuspendingConnects.connect(mina.core(), waits, remote, timeout, (state, t, start, forget, address) ->
        new SuspendingMinaTransport(state, t, start, forget, address, waits));
  }

  /**
   * How many transports this connector opened that are still open (or connecting).
   *
   * @return the number of open transports
   */
  public int openCount() {
    return mina.openCount();
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
   * Calls to {@code Suspend.await}: suspensions in a continuation (bar the rare one woken
   * during its own registration), blocked waits elsewhere.
   *
   * @return the count of calls to {@code Suspend.await}
   */
  public long suspends() {
    return waits.suspends().sum();
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
   * Closes every transport still open, disposes MINA and waits (up to 10 s) for its threads to
   * end. A second call does nothing.
   */
  @Override
  public void close() {
    mina.close();
  }

  /**
   * As {@link MinaConnector#isBroken()}: one of its threads died, and it refuses to connect.
   *
   * @return true if the connector is broken
   */
  public boolean isBroken() {
    return mina.isBroken();
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if the connector is closed
   */
  public boolean isClosed() {
    return mina.isClosed();
  }

  @Override
  public String toString() {
    return "Suspending" + mina;
  }

  /** Options for a {@link SuspendingMinaConnector}; build with {@link #tcp()} or {@link #vmPipe()}. */
  public static final class Builder {
    private final MinaConnector.Builder mina = MinaConnector.builder();
    private long spinNanos;

    private Builder() {}

    /**
     * As {@link MinaConnector.Builder#inboundBufferLimit}. Default 64 KiB.
     *
     * @param bytes the limit in bytes, at least 2
     * @return this builder
     */
    public Builder inboundBufferLimit(int bytes) {
      mina.inboundBufferLimit(bytes);
      return this;
    }

    /**
     * As {@link MinaConnector.Builder#tls}: every connect does a TLS handshake, suspending.
     *
     * @param tls the TLS settings of every connect
     * @return this builder
     */
    public Builder tls(TlsSettings tls) {
      mina.tls(tls);
      return this;
    }

    /**
     * As {@link MinaConnector.Builder#processorCount}: NIO processor threads for TCP, default (0)
     * MINA's, one more than the cores (see the class javadoc for when to pick one).
     *
     * @param count the number of processor threads; 0 for MINA's default
     * @return this builder
     */
    public Builder processorCount(int count) {
      mina.processorCount(count);
      return this;
    }

    /**
     * Before suspending, spin for up to {@code time} waiting for the future to complete or the
     * data to arrive (yielding the CPU now and then). The 2008 experiment's trick: a reply due
     * within a few microseconds costs less to spin for than a suspend and resume. Spinning
     * burns a worker's time that other ready sessions could use, so it is off by default (0).
     * A session resumed on an I/O thread (the default, unless the runner's mode says
     * {@code resumeOnWorkers()}) never spins: there the spin would hold up the reads it waits
     * for. So the spin applies to blocking callers and to sessions run on the runner's workers.
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
    public SuspendingMinaConnector tcp() {
      return new SuspendingMinaConnector(mina.tcp(), spinNanos);
    }

    /**
     * Builds an in-VM pipe connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public SuspendingMinaConnector vmPipe() {
      return new SuspendingMinaConnector(mina.vmPipe(), spinNanos);
    }
  }
}
