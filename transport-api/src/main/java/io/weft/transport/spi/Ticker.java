package io.weft.transport.spi;

/**
 * The one clock of a run: what Weft's timeouts and deadlines are measured on. A connector's
 * builder takes it ({@code ConnectorBuilder.ticker}, and the suspending connectors' builders pass
 * it on); the default is {@link #system()}; a test injects one that moves only when told
 * (netty's {@code MockTicker}), and a simulation one that reads virtual time.
 *
 * <p>What reads the connector's clock:
 * <ul>
 *   <li>In every mode, the connector itself: each connect's start and timeout, each
 *       operation's wait (operation timeout cut to what is left of the session deadline) and the
 *       session deadline, measured from the connect's start on this clock; and the runner's
 *       connect pacing and connect window ({@link Clocked}: the runner reads the clock of its
 *       connector).
 *   <li>In {@code CONTINUATIONS}, also the run's wait timer, which times every suspension of the
 *       run's sessions by it, and {@code SessionSemaphore}'s timed waits: a stepped clock ends
 *       those waits when it is stepped past them (the timer sees a step at its next pass, within
 *       a second of real time). A session's connect through a connector built on
 *       continuations-spi's {@code SuspendingConnects} (the suspending MINA and Netty connectors)
 *       on another clock than the run's is refused ({@code IllegalStateException}, "connect to X
 *       not made: the connector's clock ..."): give every connector that one run uses the same
 *       ticker (the same object; {@link #system()} is always the same one). A suspending connector
 *       that computes its waits its own way is not checked: it must read the run's clock itself.
 *   <li>In {@code SYNC}, {@code THREADS} and {@code VIRTUAL_THREADS} (and wherever a transport is
 *       used off a continuation) a blocked thread parks for the wait it computed on this clock, in
 *       real time: stepping the clock does not end a blocked wait early. The blocking connectors'
 *       waits ({@link BlockingWaits}) read the clock again when the park ends and park on until
 *       the clock says the wait is over; a suspending connector's waits off a continuation end
 *       when the park ends. Pacing waits, connect-window waits (retried on the clock) and
 *       {@code SessionSemaphore} off a continuation block in real time too ({@code SessionSemaphore}
 *       then reads the system's clock).
 * </ul>
 * Not on it: a spin before suspending ({@code spinBeforeSuspend}, a budget of CPU in real time),
 * the connectors' close waits, the runner's abort grace and close waits, and the reports' time stamps
 * ({@code RunResult}, {@code Outcome.connectStartNanos}), which are real time ({@link
 * System#nanoTime()}); {@code SocketTransport}, whose blocking socket calls time out in real time.
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
