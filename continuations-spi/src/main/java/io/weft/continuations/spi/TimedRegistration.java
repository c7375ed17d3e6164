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
 * for any registration. (A simulation's scheduler times the wait from its own clock as it arms it,
 * which cannot have moved since: one thread drives both.)
 *
 * <p>A reading is good for one wait only, and only for a wait the code that took it is about to
 * arm. Any code may hand a registration to {@link Suspend#await}, including code that did not
 * take a reading for this wait (a registration reused across waits, or passed to SPI code such as
 * {@link SuspendingWaits#awaitInput} that waits on it without knowing it is timed): a reading of an
 * earlier wait would time this one from the past, and it would end early. So the contract is
 * <em>consumed once</em>: as it arms a timed wait, the runtime calls {@link #timedOn()} and then
 * {@link #timedFrom()}, once each; {@code timedFrom()} spends the reading, and until the waiting
 * code takes a new one {@code timedOn()} answers {@code null}, and the wait is timed from the
 * timer's clock as it is armed (never early; late by the time since the waiting code's own
 * reading, if it had one). A registration made for one wait only, with its reading, may skip the
 * bookkeeping. A wait that is never armed (no timeout) spends nothing: a registration reused
 * across waits also drops its reading when its wait ends.
 */
public interface TimedRegistration extends WaitRegistration {

  /**
   * The clock {@link #timedFrom()} was read on. The runtime times the wait from that reading only
   * when this is the very clock its timer reads (the run's); a reading of any other clock says
   * nothing about its timer's time, and the wait is then timed from the timer's clock as the wait
   * is armed, as for any registration.
   *
   * @return the clock, the same object each call, while the registration holds a reading taken
   *     for the wait now being armed and not yet spent by {@link #timedFrom()}; otherwise {@code
   *     null}, and the wait is timed from the timer's clock as it is armed
   */
  Ticker timedOn();

  /**
   * The reading of {@link #timedOn()} that the timeout of the wait now being registered counts
   * from: read by the waiting code, for this wait, before it calls {@link Suspend#await}. Called
   * once per wait, as the runtime arms it, after {@link #timedOn()}; it spends the reading (see the
   * class comment), so that a second wait armed without a new reading is timed from the clock.
   *
   * @return the clock's reading, in its nanoseconds
   */
  long timedFrom();
}
