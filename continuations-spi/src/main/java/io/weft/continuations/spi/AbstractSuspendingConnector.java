package io.weft.continuations.spi;

import io.weft.transport.TlsSettings;
import io.weft.transport.spi.ConnectorBuilder;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.Ticker;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * What every suspending connector over an I/O library shares: the library's connector skeleton
 * (its open connections and its close), the {@link SuspendingWaits} of its transports and the
 * counters that tell how waits ended, for tuning. A subclass adds the connect, which opens its
 * own transport type through {@link SuspendingConnects}, and what only its library has.
 */
public abstract class AbstractSuspendingConnector implements SuspendingConnector {
  private final ConnectorCore<?, ?> core;
  private final SuspendingWaits waits;

  /**
   * A connector over {@code core}, its transports waiting through {@code waits}.
   *
   * @param core the skeleton of the blocking connector this one wraps, which it closes
   * @param waits the waits of its transports, which count how waits ended
   */
  protected AbstractSuspendingConnector(ConnectorCore<?, ?> core, SuspendingWaits waits) {
    this.core = Objects.requireNonNull(core, "core");
    this.waits = Objects.requireNonNull(waits, "waits");
  }

  /**
   * The waits of this connector's connect and transports.
   *
   * @return the waits
   */
  protected final SuspendingWaits waits() {
    return waits;
  }

  /**
   * The clock of this connector's connects, waits and session deadlines: its {@link
   * SuspendingWaits}' ({@link SuspendingWaits#ticker()}), which the built-in connectors make from
   * the clock set by {@link Builder#ticker}. A run of the {@code continuations} runner over this
   * connector takes it as the run's clock, and a session's connect checks its connector's waits'
   * clock against it: both read the waits' clock, so a subclass cannot make them differ. Final,
   * under a name unlikely to clash with a subclass's own method; the built-in connectors also
   * answer it as {@link io.weft.transport.spi.Clocked#ticker()}.
   *
   * @return the clock
   */
  public final Ticker suspendingWaitsTicker() {
    return waits.ticker();
  }

  /**
   * How many transports this connector opened that are still open (or connecting).
   *
   * @return the number of open transports
   */
  public final int openCount() {
    return core.openCount();
  }

  /**
   * Waits that were not needed: data already buffered, or a future already done.
   *
   * @return the count of waits that did not wait
   */
  public final long immediate() {
    return waits.immediate().sum();
  }

  /**
   * Waits that ended during the brief spin before suspending.
   *
   * @return the count of waits that ended while spinning
   */
  public final long spun() {
    return waits.spun().sum();
  }

  /**
   * Calls to {@code Suspend.await}: suspensions in a continuation (bar the rare one woken
   * during its own registration), blocked waits elsewhere.
   *
   * @return the count of calls to {@code Suspend.await}
   */
  public final long suspends() {
    return waits.suspends().sum();
  }

  /**
   * The spin before suspending, in nanoseconds; 0 when off.
   *
   * @return the spin in nanoseconds
   */
  public final long spinBeforeSuspendNanos() {
    return waits.spinNanos();
  }

  /**
   * Closes every transport still open, ends the library's I/O threads and waits (up to 10 s) for
   * them to end. A second call does nothing.
   */
  @Override
  public final void close() {
    core.close();
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if the connector is closed
   */
  public final boolean isClosed() {
    return core.isClosed();
  }

  /**
   * The options every suspending connector takes: those of the blocking connector it wraps, and
   * the spin before suspending. A connector's own builder extends it with what only its library
   * has and the methods that build. Not thread-safe.
   *
   * @param <B> the connector's own builder type, returned by every option for chaining
   */
  public abstract static class Builder<B extends Builder<B>> {
    private final ConnectorBuilder<?> blocking;
    private long spinNanos;

    /**
     * A builder that passes the shared options on to {@code blocking}.
     *
     * @param blocking the builder of the blocking connector that the built one wraps, which
     *     takes the shared options
     */
    protected Builder(ConnectorBuilder<?> blocking) {
      this.blocking = Objects.requireNonNull(blocking, "blocking");
    }

    /**
     * Every connect does a TLS handshake as {@code tls} says before it returns (implicit TLS),
     * suspending like any other wait.
     *
     * @param tls the TLS settings of every connect
     * @return this builder
     */
    public final B tls(TlsSettings tls) {
      blocking.tls(tls);
      return self();
    }

    /**
     * The clock of the built connector's connects, waits and session deadlines, and of every
     * run of the {@code continuations} runner over it: its wait timer, connect pacing, connect
     * window and {@code SessionSemaphore} waits (see {@link Ticker}). Default
     * {@link Ticker#system()}; a test injects one it steps by hand.
     *
     * @param ticker the clock
     * @return this builder
     */
    public final B ticker(Ticker ticker) {
      blocking.ticker(ticker);
      return self();
    }

    /**
     * Bytes a connection may buffer unread before reading from the peer is suspended (resumed
     * when the reader has drained it below half). Default 64 KiB.
     *
     * @param bytes the limit in bytes, at least 2
     * @return this builder
     * @throws IllegalArgumentException if {@code bytes < 2}
     */
    public final B inboundBufferLimit(int bytes) {
      blocking.inboundBufferLimit(bytes);
      return self();
    }

    /**
     * Before suspending, spin for up to {@code time} waiting for the future to complete or the
     * data to arrive (yielding the CPU now and then). The 2008 experiment's trick: a reply due
     * within a few microseconds costs less to spin for than a suspend and resume. Spinning
     * burns a worker's time that other ready sessions could use, so it is off by default (0).
     * A session resumed on an I/O thread (the default, unless the runner's mode says
     * {@code resumeOnWorkers()}) never spins: there the spin would hold up the reads it waits
     * for. So the spin applies to blocking callers and to sessions run on the runner's workers.
     * The spin is real time ({@link System#nanoTime()}), whatever clock {@link #ticker(Ticker)} set.
     *
     * @param time the longest spin; 0 for none
     * @param unit the unit of {@code time}
     * @return this builder
     * @throws IllegalArgumentException if {@code time < 0}
     */
    public final B spinBeforeSuspend(long time, TimeUnit unit) {
      if (time < 0L) {
        throw new IllegalArgumentException("time < 0: " + time);
      }
      this.spinNanos = unit.toNanos(time);
      return self();
    }

    /**
     * The spin before suspending that was asked for.
     *
     * @return the spin in nanoseconds; 0 for none
     */
    protected final long spinNanos() {
      return spinNanos;
    }

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }
  }
}
