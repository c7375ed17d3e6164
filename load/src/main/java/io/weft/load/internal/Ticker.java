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
 * <p>Not on this clock: waits of the session runner (think time, transport timeouts), which
 * suspend the session, and the once-a-second live report, which only reads this clock.
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
}
