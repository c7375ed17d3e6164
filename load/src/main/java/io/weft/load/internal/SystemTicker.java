package io.weft.load.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * The ticker of real runs. While it is the only {@link Ticker} a JVM uses, the JIT inlines the
 * recorder's clock reads to {@code System.nanoTime()}, so the seam costs nothing per operation.
 */
final class SystemTicker implements Ticker {
  static final SystemTicker INSTANCE = new SystemTicker();

  private SystemTicker() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public void parkUntil(long deadlineNanos) {
    LockSupport.parkNanos(deadlineNanos - System.nanoTime());
  }
}
