package io.weft.continuations.runtime.spi;

/**
 * The timer of a {@link DrivenScheduler}, kept by its caller on the caller's clock: a session
 * that waits with a timeout arms it here, and the caller calls {@link SessionWait#timeOut()} once
 * that much of its time has passed (a wait that ended meanwhile ignores it). Called on the thread
 * that drives the scheduler, while a session's slice runs.
 *
 * <p>The same {@link SessionWait} can be armed again, for a later wait of its session, once the
 * wait it stood for has ended (see {@link ReleasingRegistration}); a wait with a timeout is
 * handed only the object of an earlier wait with a timeout, so every reuse of an object this
 * timer has seen comes through {@link #arm}. A timer that keeps a wait must therefore time it
 * out at the deadline of its latest arm, not an earlier one.
 */
@FunctionalInterface
public interface WaitTimeouts {
  /**
   * Arms {@code wait}'s timeout.
   *
   * @param wait the wait, {@linkplain SessionWait#isPending() pending} now
   * @param timeoutNanos its timeout, more than 0, in the caller's clock's nanoseconds
   */
  void arm(SessionWait wait, long timeoutNanos);
}
