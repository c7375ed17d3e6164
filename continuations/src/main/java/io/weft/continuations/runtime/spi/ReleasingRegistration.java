package io.weft.continuations.runtime.spi;

import io.weft.continuations.spi.WaitRegistration;

/**
 * A {@link WaitRegistration} that lets go of the wake-up it was given once its wait has ended:
 * it never runs a wake-up after the session has come back from the wait it was registered for,
 * whether that wait was woken, timed out or cancelled (a transport's single reader slot that the
 * wake-up clears, and that the session clears itself when its wait times out or fails).
 *
 * <p>What it allows: a {@link DrivenScheduler} hands a session's timed waits on such
 * registrations one wake-up object, armed again for each wait, instead of a new one per wait
 * (a busy simulation waits millions of times). A registration that keeps wake-ups past their
 * wait, such as a queue of waiters that a timed-out waiter stays in or a listener that fires
 * later, must not implement it: its late wake-up would end the session's next wait. Other
 * schedulers ignore it.
 */
public interface ReleasingRegistration extends WaitRegistration {}
