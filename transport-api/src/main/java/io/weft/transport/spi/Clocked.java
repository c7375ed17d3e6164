package io.weft.transport.spi;

/**
 * A connector, or a session of the runtime, whose waits read a {@link Ticker}: for a connector,
 * the clock its connects, operation timeouts and session deadlines are measured on, which the
 * {@code continuations} module's runner reads from the run's connector and makes the run's one
 * clock (see {@link Ticker}; a connector that is not {@code Clocked} runs on
 * {@link Ticker#system()}); for a session, its run's clock.
 */
public interface Clocked {
  /**
   * The clock of this connector's (or session's) waits.
   *
   * @return the clock, never null
   */
  Ticker ticker();
}
