package io.weft.load.internal;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.spi.TimedRegistration;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.load.record.OpRecorder;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;

/**
 * What every virtual user of one run shares: the scenario to make, where to connect, the
 * workload model's pacing and the metrics. Its methods never wait: the waiting is done by the
 * virtual user itself, through {@code Suspend.await}, so that it suspends in continuation mode.
 */
public final class Plan {
  private final String scenarioClass;
  private final Map<String, String> params;
  private final Connector connector;
  private final List<SocketAddress> addresses;
  private final Timeout timeout;
  private final Metrics metrics;
  /** The run's clock, as its connectors and runtime read it: every wait of the users is timed on it. */
  private final io.weft.transport.spi.Ticker clock;
  private final Arrivals arrivals;
  private final long iterations;
  private final long thinkNanos;
  private final ConnectPacing.Pacer pacer;
  /** The run's connect windows, one per server, or null; {@link #windowOf} by address index. */
  private final ConnectWindow.Windows windows;
  private final ConnectWindow.Window[] windowOf;
  private volatile long durationNanos = Long.MAX_VALUE;

  /** The first backoff after a failed connect or iteration; it doubles with each failure in a row. */
  public static final long BACKOFF_MIN_NANOS = 10_000_000L;
  /** The longest backoff after failed connects or iterations. */
  public static final long BACKOFF_MAX_NANOS = 500_000_000L;
  private volatile boolean stopping;

  /**
   * @param arrivals the open model's dispatcher, or null for the closed model
   * @param iterations per user in the closed model, or 0 for "until the deadline"
   */
  public Plan(String scenarioClass, Map<String, String> params, Connector connector, List<SocketAddress> addresses,
      Timeout timeout, Metrics metrics, Arrivals arrivals, long iterations, long thinkNanos, ConnectPacing pacing,
      ConnectWindow window) {
    this.scenarioClass = scenarioClass;
    this.params = Map.copyOf(params);
    this.connector = connector;
    this.addresses = List.copyOf(addresses);
    this.timeout = timeout;
    this.metrics = metrics;
    this.arrivals = arrivals;
    this.iterations = iterations;
    this.thinkNanos = thinkNanos;
    this.clock = metrics.ticker().transportClock();
    this.pacer = pacing.newPacer(clock);
    this.windows = window.limits() ? window.newWindows(clock) : null;
    this.windowOf = new ConnectWindow.Window[this.addresses.size()];
    for (int i = 0; windows != null && i < windowOf.length; i++) {
      // One window per server: each has its own listen queue (a silent one holds only its own users).
      windowOf[i] = windows.forAddress(this.addresses.get(i));
    }
  }

  /**
   * Takes a place in the connect window of user {@code index}'s server (at most so many users
   * connected to it and not yet heard from), before a first connect or a reconnect after a
   * failure: the place, or null if the window is full. Every place is given back ({@link ConnectWindow.Slot#release()}) when the
   * connection's first bytes arrive, its connect fails, or it closes. Only when {@link #windowed()}.
   */
  public ConnectWindow.Slot tryEnterWindow(int index) {
    return windowOf[index % windowOf.length].tryEnter();
  }

  /** Whether the run has a connect window. */
  public boolean windowed() {
    return windows != null;
  }

  /** What user {@code index} waits on when its server's window is full. */
  public ConnectWindow.Waiter windowWaiter(int index) {
    return windowOf[index % windowOf.length].waiter();
  }

  /** A user begins a connect now (after its place in the window and its pacing turn, if any). */
  public void connectBegun() {
    metrics.connectBegun();
  }

  /** What the window did, or null without one. */
  public ConnectWindow.Report windowReport() {
    return windows == null ? null : windows.report();
  }

  /**
   * Reserves a user's turn to connect, paced with the run's other connects: how long to wait
   * first, in nanoseconds. On the run's clock ({@link #clock()}), as the wait itself is.
   */
  public long connectWaitNanos() {
    long wait = pacer.reserve();
    metrics.paced(wait);
    return wait;
  }

  /**
   * The backoff after {@code failuresInARow} failed connects or iterations of one user (each
   * failed iteration ends its connection): 10 ms, doubling, at most 500 ms. Only the schedule:
   * what the user waits of it is counted by {@link #backedOff}.
   */
  public long backoffNanos(int failuresInARow) {
    int shift = Math.min(Math.max(failuresInARow - 1, 0), 20);
    return Math.min(BACKOFF_MIN_NANOS << shift, BACKOFF_MAX_NANOS);
  }

  /**
   * A user has waited {@code waitedNanos} of a backoff of {@code backoffNanos} (less where the
   * run's end cut it short): counted in the run's figures (the summary's "connect backoffs", the
   * part waited), unless nothing was waited. A backoff never waited (the user's last iteration
   * failed, or the run ended first) is not counted.
   */
  public void backedOff(long backoffNanos, long waitedNanos) {
    if (waitedNanos > 0L) {
      metrics.backedOff(waitedNanos, backoffNanos >= BACKOFF_MAX_NANOS);
    }
  }

  /** Closed model run for a time: how long is left of it; Long.MAX_VALUE otherwise. */
  public long remainingNanos() {
    long from = metrics.measuredFrom();
    if (iterations > 0L || durationNanos == Long.MAX_VALUE || from == Long.MIN_VALUE) {
      return Long.MAX_VALUE;
    }
    return Math.max(0L, durationNanos - (metrics.ticker().nanoTime() - from));
  }

  public String scenarioClass() {
    return scenarioClass;
  }

  public Map<String, String> params() {
    return params;
  }

  public Connector connector() {
    return connector;
  }

  /**
   * The run's clock, the one its connectors and its runtime read ({@link Ticker#transportClock()}
   * of the metrics' ticker): the users' waits (think time, pacing, backoffs, the window's) are
   * measured on it.
   */
  public io.weft.transport.spi.Ticker clock() {
    return clock;
  }

  /**
   * What a user waits on for a pause of the run's clock (think time, a pacing turn, a backoff): a
   * registration that never wakes, timed from {@code fromNanos}, the user's own reading of
   * {@link #clock()} for this wait (see {@link TimedRegistration}): in continuation mode the wait
   * ends when the clock reads {@code fromNanos} plus its timeout, even if the clock moved between
   * the reading and the suspend. One wait only.
   */
  public WaitRegistration pauseFrom(long fromNanos) {
    return new Pause(clock, fromNanos);
  }

  /** {@link #pauseFrom}'s registration: never wakes; its reading is spent by the first wait that arms it. */
  private static final class Pause implements TimedRegistration {
    private final io.weft.transport.spi.Ticker clock;
    private final long from;
    private boolean spent;

    Pause(io.weft.transport.spi.Ticker clock, long from) {
      this.clock = clock;
      this.from = from;
    }

    @Override
    public void register(Runnable wakeUp) {
      // Never wakes: the wait is its timeout.
    }

    @Override
    public io.weft.transport.spi.Ticker timedOn() {
      return spent ? null : clock;
    }

    @Override
    public long timedFrom() {
      spent = true;
      return from;
    }
  }

  /** Where session {@code index} (re)connects: round robin, as the runner does. */
  public SocketAddress address(int index) {
    return addresses.get(index % addresses.size());
  }

  public Timeout timeout() {
    return timeout;
  }

  public Metrics metrics() {
    return metrics;
  }

  public OpRecorder newSession() {
    return metrics.newSession();
  }

  /** True for the open model: take arrivals from {@link #slot()}. */
  public boolean open() {
    return arrivals != null;
  }

  /** A session's place in the open model's dispatcher. */
  public Arrivals.Slot slot() {
    return arrivals.slot();
  }

  /** Closed model: whether a user that has done {@code done} iterations starts another. */
  public boolean another(long done) {
    if (stopping) {
      return false;
    }
    if (iterations > 0L) {
      return done < iterations;
    }
    long from = metrics.measuredFrom();
    return from == Long.MIN_VALUE || metrics.ticker().nanoTime() - from < durationNanos;
  }

  /** Closed model: the pause between a user's iterations. */
  public long thinkNanos() {
    return thinkNanos;
  }

  /**
   * Closed model run for a time: users start no iteration once {@code duration} has passed
   * since the measured window began (the first iteration's begin plus the warm-up).
   */
  public void duration(long durationNanos) {
    this.durationNanos = durationNanos;
  }

  /** Ends the run: users start no more iterations. */
  public void stop() {
    stopping = true;
  }

  public boolean stopping() {
    return stopping;
  }

  /** An iteration meant to start at {@code intendedNanos} (the run's ticker) starts now. */
  public void begin(OpRecorder ops, long intendedNanos) {
    metrics.iterationStarted();
    ((SessionOps) ops).beginIteration(metrics.ticker().nanoTime() - intendedNanos);
  }

  /** A closed-model iteration starts now. */
  public void begin(OpRecorder ops) {
    metrics.iterationStarted();
    ((SessionOps) ops).beginIteration(0L);
  }

  public void end() {
    metrics.iterationEnded();
  }

  /**
   * A user's new connection, or null once it has none: its replies are timed with the run's
   * clock when the transport can ({@link io.weft.transport.spi.ReplyTiming}).
   */
  public void connected(OpRecorder ops, io.weft.transport.Transport transport) {
    ((SessionOps) ops).replies(transport instanceof io.weft.transport.spi.ReplyTiming
        ? (io.weft.transport.spi.ReplyTiming) transport : null);
  }

  /** The iteration that ran ended without an exception. */
  public void succeeded() {
    metrics.iterationSucceeded();
  }

  /** Counts {@code error} against the running operation, or against {@code fallback}. */
  public void failed(OpRecorder ops, Throwable error, String fallback) {
    ((SessionOps) ops).failed(error, fallback);
  }
}
