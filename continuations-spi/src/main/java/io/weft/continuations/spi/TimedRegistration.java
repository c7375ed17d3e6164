package io.weft.continuations.spi;

import io.weft.transport.spi.Ticker;

/**
 * A {@link WaitRegistration} whose wait's timeout counts from a reading of the clock that the
 * waiting code took itself, where it worked the timeout out, rather than from the clock as the
 * runtime arms the wait.
 *
 * <p>Why: a wait worked out from one reading ({@code left = deadline - clock.nanoTime()}) and timed
 * from a second one ends late by whatever the clock moved between the two. On the system clock
 * that is nanoseconds; on a clock a test or a simulation steps, a step that falls between the two
 * readings puts the wait's end past the clock's last move, and the wait never ends. Timed from the
 * reading it was worked out on, the wait ends exactly at the deadline it was computed for, and
 * the runtime reads the clock no second time.
 *
 * <p>In a {@code CONTINUATIONS} session, {@link Suspend#await}{@code (registration, timeoutNanos)}
 * with such a registration ends the wait once the session's clock (its run's, the connector's
 * {@code Ticker}) reads {@link #timedFrom()}{@code + timeoutNanos}, when {@link #timedOn()} is that
 * clock. Off a continuation the caller's thread blocks for {@code timeoutNanos} of real time, as
 * for any registration.
 */
public interface TimedRegistration extends WaitRegistration {

  /**
   * The clock {@link #timedFrom()} was read on. The runtime times the wait from that reading only
   * when this is the very clock its timer reads (the run's); a reading of any other clock says
   * nothing about its timer's time, and the wait is then timed from the timer's clock as the wait
   * is armed, as for any registration.
   *
   * @return the clock, the same object each call
   */
  Ticker timedOn();

  /**
   * The reading of {@link #timedOn()} that the timeout of the wait now being registered counts
   * from: read by the waiting code before it calls {@link Suspend#await}. Called once per wait, as
   * the runtime arms it.
   *
   * @return the clock's reading, in its nanoseconds
   */
  long timedFrom();
}
