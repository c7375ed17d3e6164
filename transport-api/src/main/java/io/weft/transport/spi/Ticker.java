package io.weft.transport.spi;

/**
 * The one clock that Weft's waits read: timeouts, session deadlines and the runtime's timers. The
 * system ticker is {@link System#nanoTime()}; a test injects one that moves only when told
 * (netty's {@code MockTicker}), and a simulation one that reads virtual time.
 */
@FunctionalInterface
public interface Ticker {
  /**
   * The real clock, {@link System#nanoTime()}: the default of every connector.
   *
   * @return the one ticker that reads {@link System#nanoTime()}, the same object at every call
   */
  static Ticker system() {
    return SystemTicker.INSTANCE;
  }

  /**
   * Now, in nanoseconds. Only the difference between two readings of the same ticker means
   * anything; it never goes backwards. Safe to call from any thread.
   *
   * @return the current reading
   */
  long nanoTime();
}
