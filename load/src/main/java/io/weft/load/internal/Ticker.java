package io.weft.load.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The clock of one load run, in nanoseconds as {@link System#nanoTime()} counts them. Everything
 * that reads time during a run reads it here: the open model's dispatcher (the schedule's time 0,
 * each arrival's intended start, and its wait until the next one is due), each iteration's lag
 * behind its intended start, each operation's start and stop, the warm-up and the closed
 * model's duration, and the interval ticks whose length gives the rate and the coordinated-omission
 * correction's expected interval. A run uses {@link #system()}; a test gives a ticker that moves
 * only when told (netty's {@code MockTicker}), so that the figures of a scripted run are exact.
 *
 * <p>The run hands the same clock ({@link #transportClock()}) to its connectors and its session
 * runner, so that the users' waits are on it too: think time, connect pacing and the connect
 * window's waits, backoffs, connect and read timeouts. In {@code CONTINUATIONS} the runtime's
 * timer ends them when this clock reaches their end (a test's clock: when the test moves it); in
 * the other modes a user's own waits (think time, pacing, backoffs) park in real time and then
 * park on until this clock says the wait is over, and its transports time out as their connector
 * does (the in-VM pipe's on this clock, plain sockets in real time). Not on it: the once-a-second
 * live report, which only reads this clock.
 *
 * <p>It is Weft's one clock interface ({@link io.weft.transport.spi.Ticker}, which the runtime's
 * waits and timers read) plus the one thing a load run's dispatcher needs besides reading it:
 * parking until a deadline.
 */
public interface Ticker extends io.weft.transport.spi.Ticker {

  /** {@link System#nanoTime()} and {@link LockSupport#parkNanos(long)}. */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }

  /**
   * Parks the calling thread until this ticker reads {@code deadlineNanos} or later. Like
   * {@link LockSupport#parkNanos(long)} it may return sooner ({@link LockSupport#unpark}, or
   * spuriously): the caller reads the time again and decides. A deadline rather than a length,
   * so that time that passes between the caller's reading and the park is not waited twice.
   */
  void parkUntil(long deadlineNanos);

  /**
   * The clock the run hands to its connectors and its session runner: this ticker itself, or, for
   * {@link #system()}, Weft's one system clock object ({@link io.weft.transport.spi.Ticker#system()}),
   * which reads the same time.
   */
  default io.weft.transport.spi.Ticker transportClock() {
    return this;
  }
}
