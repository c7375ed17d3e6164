package io.weft.transport.spi;

/**
 * The one clock that Weft's waits read: timeouts, session deadlines and the runtime's timers. The
 * system ticker is {@link System#nanoTime()}; a test injects one that moves only when told
 * (netty's {@code MockTicker}), and a simulation one that reads virtual time.
 */
@FunctionalInterface
public interface Ticker {
  /** {@link System#nanoTime()}. */
  static Ticker system() {
    return System::nanoTime;
  }

  /** Now, in nanoseconds; only the difference between two readings means anything. */
  long nanoTime();
}
