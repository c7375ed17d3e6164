package io.weft.transport.spi;

/** {@link Ticker#system()}: one object, so that two connectors on the system clock share their clock. */
final class SystemTicker implements Ticker {
  static final SystemTicker INSTANCE = new SystemTicker();

  private SystemTicker() {}

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return "Ticker.system()";
  }
}
