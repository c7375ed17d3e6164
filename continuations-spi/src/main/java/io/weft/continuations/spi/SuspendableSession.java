package io.weft.continuations.spi;

import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * The session side of {@link Suspend#await}: what a runtime that runs sessions as continuations
 * gives the suspension primitive. Weft's own runtime (module {@code continuations}) implements it
 * with its fiber; a transport never sees it.
 *
 * <p>One session's calls come in this order, on whichever thread runs the session at the time:
 * {@link #arm} once per wait; then, if the returned wait is not {@linkplain
 * PendingWait#isSettled() settled}, the continuation suspends, and once resumed the session calls
 * {@link #resumedAtWait()} before it reads {@link PendingWait#result()}. A runtime uses the
 * second call to know, apart from the engine's return path, that the session suspended and was
 * resumed where it meant to be.
 *
 * <p>The runtime makes a session reachable from its continuation by passing it as the context
 * of {@code Continuation.startWith} and {@code resume}; {@code Suspend} finds it there.
 */
public interface SuspendableSession {

  /**
   * Registers one wait. The wait is settled at once when {@code registration} ran its wake-up
   * inline, or when {@code timeoutNanos} is 0.
   *
   * @param recorder the engine's recorder of the continuation now running, for the runtime's
   *     checks (a recorder still capturing means a frame swallowed an earlier suspend)
   * @throws SessionCancelledException if the session's run was cancelled
   * @throws IOException or an {@link Error} of the runtime's, if the session cannot suspend here
   * @param registration registers the wake-up with whatever the session waits for
   * @param timeoutNanos the longest wait in nanoseconds, or {@link Deadlines#FOREVER} for no limit;
   *     counted from a {@link TimedRegistration}'s reading where it is of the session's clock
   * @return the armed wait, which settles on the wake-up or the timeout
   */
  PendingWait arm(StackRecorder recorder, WaitRegistration registration, long timeoutNanos)
      throws IOException;

  /** Called by the session right after its continuation was resumed at a wait it armed. */
  void resumedAtWait();

  /**
   * The error that ends this session because a transport operation was entered while its
   * continuation was being captured: a frame that was not rewritten swallowed a suspend and called
   * on (see {@link Suspend#checkEntry()}). The runtime records it as the session's outcome, whatever
   * the session's code throws after it.
   *
   * @return the error to throw, naming the frame where it can
   */
  Error swallowed();

  /** One wait armed by {@link SuspendableSession#arm}. */
  interface PendingWait {

    /**
     * True when the wait ended before the session had to suspend (woken inline, or a poll).
     *
     * @return true once the wait has been woken, timed out or cancelled
     */
    boolean isSettled();

    /**
     * What {@link Suspend#await} returns: true when woken, false when timed out (or a poll that
     * was not woken).
     *
     * @throws SessionCancelledException if the wait ended because the session was cancelled
     * @return true if the wait was woken, false if it timed out
     */
    boolean result() throws SessionCancelledException;
  }
}
