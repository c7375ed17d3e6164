package io.weft.transport.spi;

/**
 * A connector whose waits read a {@link Ticker}: the clock its connects, operation timeouts and
 * session deadlines are measured on. The {@code continuations} module's runner reads it from the
 * run's connector and makes it the run's one clock (see {@link Ticker}); a connector that is not
 * {@code Clocked} runs on {@link Ticker#system()}.
 */
public interface Clocked {
  /**
   * The clock of this connector's waits.
   *
   * @return the clock, never null
   */
  Ticker ticker();
}
