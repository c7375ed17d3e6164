package io.weft.load.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The ticker of real runs: Weft's one system clock ({@link io.weft.transport.spi.Ticker#system()})
 * plus the dispatcher's park. Its reading is the system clock's ({@code System.nanoTime()}), and it
 * hands that very clock object to the run's connectors and runtime ({@link #transportClock()}), so
 * that a run on the system clock has one clock object: the one every connector defaults to, which
 * the runtime's identity check of a session's connect ({@code Suspend.checkClock}) compares with. While it is the only {@link
 * Ticker} a JVM uses, the JIT inlines the recorder's clock reads to {@code System.nanoTime()}, so
 * the seam costs nothing per operation.
 */
final class SystemTicker implements Ticker {
  static final SystemTicker INSTANCE = new SystemTicker();
  private static final io.weft.transport.spi.Ticker SYSTEM = io.weft.transport.spi.Ticker.system();

  private SystemTicker() {}

  @Override
  public long nanoTime() {
    // System.nanoTime() itself, not SYSTEM's (the same time): the recorder's per-operation read stays
    // what it was; only transportClock() needs to be that object.
    return System.nanoTime();
  }

  @Override
  public io.weft.transport.spi.Ticker transportClock() {
    return SYSTEM;
  }

  @Override
  public void parkUntil(long deadlineNanos) {
    LockSupport.parkNanos(deadlineNanos - System.nanoTime());
  }
}
