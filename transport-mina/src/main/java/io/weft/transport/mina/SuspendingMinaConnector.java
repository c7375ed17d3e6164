package io.weft.transport.mina;

import io.weft.continuations.spi.SuspendingConnects;
import io.weft.continuations.spi.AbstractSuspendingConnector;
import io.weft.continuations.spi.SuspendingWaits;
import io.weft.transport.Timeout;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Ticker;
import io.weft.transport.mina.internal.ThreadCounts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
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
 * resume on its own workers ({@code Mode.continuations(k).resumeOnWorkers()}). So one processor
 * by default over TCP, as {@code SuspendingNettyConnector} has one event loop: it does all the work
 * of its sessions without a hand-off, and more processors than it needs only add sleeps in
 * {@code select} and wake-ups. Measured on 2 cores against a loopback redis-server (JDK 25, two
 * runs of three interleaved rounds on an otherwise idle machine, 2026-11-27; perf-tests/results/peers-history.md),
 * one processor against MINA's own default of one more than the cores: 1.19x-1.24x the round
 * trips/s at 100 sessions and 1.05x-1.15x at 10,000 (both workloads, both runs), 0.93x-1.03x at
 * 1,000, with about a thirtieth of the context switches per round trip at 100. One processor is
 * one core for every session's work and TLS handshakes, whatever {@code continuations(k)} says
 * (the workers run sessions only with {@code resumeOnWorkers()}), and it serves the blocking
 * modes' sessions too when they use this connector. Set {@link Builder#processorCount} to the
 * cores available when the sessions' own work or their TLS needs more than one core, or on a
 * machine so loaded that one preempted thread would stall every session.
 *
 * <p>A connect made by a session that runs on one of the processors (resumed there by its input,
 * or started there as another session ended) is watched by that processor's own selector and
 * finished on its thread, as Netty's event loop connects its channels: MINA's connector thread,
 * its selector, and its sleep and wake-up per connect take no part, and the new session is served
 * by the processor that runs it. A connect made on any other thread (a worker starting the first
 * sessions of a run, a caller's own thread) is handed to a processor, round-robin over them, and
 * made and finished on its loop the same way, as Netty hands a connect to its event loop: one
 * wake-up of that loop for all the connects handed over before it next looks, the caller's future
 * completed there. The in-VM pipe's connects are MINA's own.
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
public final class SuspendingMinaConnector extends AbstractSuspendingConnector implements Clocked {
  private final MinaConnector mina;

  private SuspendingMinaConnector(MinaConnector mina, long spinNanos) {
    super(mina.core(), waits(mina.counts(), spinNanos, mina.ticker()));
    this.mina = mina;
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


  /** Counted in slots of MINA's own threads (see ThreadCounts), so its I/O threads share no counter. */
  private static SuspendingWaits waits(ThreadCounts counts, long spinNanos, Ticker ticker) {
    return new SuspendingWaits(spinNanos, counts.counter(0), counts.counter(1), counts.counter(2), ticker);
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
    SuspendingWaits waits = waits();
    return SuspendingConnects.connect(mina.core(), waits, remote, timeout, (state, t, start, forget, address) ->
        new SuspendingMinaTransport(state, t, start, forget, address, waits));
  }







  /**
   * As {@link MinaConnector#processorCount()}: the NIO processor threads this connector runs, 0
   * for the in-VM pipe.
   *
   * @return its processor count
   */
  public int processorCount() {
    return mina.processorCount();
  }

  /** The MINA connector under this one: for tests of this package. */
  MinaConnector mina() {
    return mina;
  }

  /**
   * As {@link MinaConnector#isBroken()}: one of its threads died, and it refuses to connect.
   *
   * @return true if the connector is broken
   */
  public boolean isBroken() {
    return mina.isBroken();
  }


  @Override
  public String toString() {
    return "Suspending" + mina;
  }

  /**
   * Options for a {@link SuspendingMinaConnector}: those of every suspending connector
   * ({@link AbstractSuspendingConnector.Builder#tls}, {@link AbstractSuspendingConnector.Builder#inboundBufferLimit},
   * {@link AbstractSuspendingConnector.Builder#spinBeforeSuspend}) and MINA's processor count;
   * build with {@link #tcp()} or {@link #vmPipe()}.
   */
  public static final class Builder extends AbstractSuspendingConnector.Builder<Builder> {
    private final MinaConnector.Builder mina;

    private Builder() {
      this(MinaConnector.builder());
    }

    private Builder(MinaConnector.Builder mina) {
      super(mina);
      this.mina = mina;
    }

    /**
     * As {@link MinaConnector.Builder#processorCount}: NIO processor threads for TCP; default (0)
     * one, as {@code SuspendingNettyConnector} has one event loop (see the class javadoc for the
     * figures, and for when to pick more).
     *
     * @param count the number of processor threads; 0 for the default, one
     * @return this builder
     * @throws IllegalArgumentException if {@code count < 0}
     */
    public Builder processorCount(int count) {
      mina.processorCount(count);
      return this;
    }

    /**
     * Builds a TCP connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public SuspendingMinaConnector tcp() {
      return new SuspendingMinaConnector(mina.tcpConnectingOnLoops(1), spinNanos());
    }

    /**
     * Builds an in-VM pipe connector with these options.
     *
     * @return a new connector, which the caller closes
     * @throws IllegalStateException if TLS was asked for
     */
    public SuspendingMinaConnector vmPipe() {
      return new SuspendingMinaConnector(mina.vmPipe(), spinNanos());
    }
  }
}
