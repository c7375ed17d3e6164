package io.weft.transport.mina;

import io.weft.continuations.spi.LoopThread;
import io.weft.continuations.spi.Suspend;
import io.weft.transport.internal.Deadlines;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.SessionState;
import io.weft.transport.mina.internal.ThreadCounts;
import java.io.IOException;
import org.apache.commons.javaflow.api.continuable;
import org.apache.mina.core.future.IoFuture;

/**
 * How a {@link ContinuingMinaConnector} and its transports wait: on an {@link IoFuture} or for
 * input, through {@link Suspend#await}, so that a continuation suspends and an ordinary thread
 * blocks. One per connector, shared by its transports; it also counts how waits ended.
 *
 * <p>Order of a wait: the caller has already looked once (fast path, counted as
 * {@link #immediate}); then, if configured and not on an I/O thread, a brief spin
 * ({@link #spun}); then
 * {@code Suspend.await} ({@link #suspends}). A read on a TCP session that has ever been
 * suspended for backpressure waits in slices of at most 200 ms and re-asserts the session's
 * read interest between slices, because MINA 2.2 can lose a resume (see
 * {@link SessionState#reassertTraffic()}); the slices add up to exactly the caller's wait.
 *
 * <p>Every method that can reach {@code Suspend.await} carries {@code @continuable} and is
 * rewritten by the JavaFlow build step; nothing here suspends in a lambda (the registration
 * lambdas only register).
 */
final class SuspendingWaits {
  private static final long REASSERT_NANOS = SessionState.REASSERT_NANOS;
  private static final int SPINS_PER_YIELD = 64;

  private final long spinNanos;
  final ThreadCounts.Counter immediate;
  final ThreadCounts.Counter spun;
  final ThreadCounts.Counter suspends;

  /**
   * @param spinNanos how long to spin for the condition before suspending; 0 for not at all
   * @param counts the connector's counters, kept per I/O thread
   */
  SuspendingWaits(long spinNanos, ThreadCounts counts) {
    this.spinNanos = spinNanos;
    this.immediate = counts.counter(0);
    this.spun = counts.counter(1);
    this.suspends = counts.counter(2);
  }

  long spinNanos() {
    return spinNanos;
  }

  /**
   * Waits until {@code future} is done or {@code state}'s session ends (whoever ends it: MINA
   * does not always complete a future when it closes the session), for at most {@code nanos}
   * ({@link Deadlines#FOREVER} for no bound). Returns true when done or ended (the caller tells
   * which), false when the time ran out.
   *
   * @throws IllegalStateException at once, on a MINA I/O thread, if the future is not done
   */
  @continuable
  boolean awaitDone(SessionState state, IoFuture future, long nanos, String what) throws IOException {
    if (future.isDone()) {
      immediate.increment();
      return true;
    }
    IoThreads.checkMaySuspend(what);
    long start = System.nanoTime();
    if (maySpin() && spinUntilDone(state, future, start, nanos)) {
      spun.increment();
      return true;
    }
    while (!future.isDone() && !state.hasEnded()) {
      long left = left(nanos, start);
      if (left <= 0L) {
        return false;
      }
      suspends.increment();
      // addListener on a future that completed meanwhile runs the wake-up inline: no suspend.
      boolean woken = Suspend.await(wake -> registerDoneOrEnded(state, future, wake), left);
      state.cancelEndWakeup();
      if (!woken) {
        return future.isDone() || state.hasEnded();
      }
    }
    return true;
  }

  private static void registerDoneOrEnded(SessionState state, IoFuture future, Runnable wake) {
    if (!state.wakeWhenEnded(wake)) {
      wake.run();
      return;
    }
    future.addListener(done -> wake.run());
  }

  /**
   * Waits until input arrives on {@code state} (after a poll that answered "need more"), for at
   * most {@code nanos}. Returns true when it may have arrived (poll again), false when the time
   * ran out.
   *
   * @throws IllegalStateException at once, on a MINA I/O thread
   */
  @continuable
  boolean awaitInput(SessionState state, long nanos) throws IOException {
    IoThreads.checkMaySuspend("input");
    state.readerWaiting(true);
    boolean arrived;
    // No finally: a suspension unwinds this frame without running one, and it is no end.
    try {
      arrived = awaitInputMarked(state, nanos);
    } catch (IOException | RuntimeException e) {
      state.readerWaiting(false);
      throw e;
    }
    state.readerWaiting(false);
    return arrived;
  }

  @continuable
  private boolean awaitInputMarked(SessionState state, long nanos) throws IOException {
    long start = System.nanoTime();
    if (maySpin() && spinUntilInput(state, start, nanos)) {
      spun.increment();
      return true;
    }
    for (;;) {
      long left = left(nanos, start);
      if (left <= 0L) {
        return false;
      }
      boolean sliced = state.suspensions() > 0 && left > REASSERT_NANOS;
      suspends.increment();
      if (Suspend.await(state.readerRegistration(), sliced ? REASSERT_NANOS : left)) {
        return true;
      }
      // The timed-out wake-up is still registered with the state; a new one replaces it.
      state.cancelWakeup();
      if (!sliced) {
        return false;
      }
      state.reassertTraffic();
    }
  }

  /**
   * True when this wait should spin first: a spin is configured and the caller is not a
   * {@link LoopThread}. A session resumed on an I/O thread would spin on the very thread that
   * reads its reply (and every other session's on that thread), so the spin could only end by
   * time; there it suspends at once.
   */
  private boolean maySpin() {
    return spinNanos > 0L && !(Thread.currentThread() instanceof LoopThread);
  }

  private static long left(long nanos, long start) {
    return nanos == Deadlines.FOREVER ? Deadlines.FOREVER : nanos - (System.nanoTime() - start);
  }

  /** The spin's end: {@code spinNanos} from {@code start}, but never past the wait's own end. */
  private long spinEnd(long start, long nanos) {
    return start + Math.min(spinNanos, nanos);
  }

  private boolean spinUntilDone(SessionState state, IoFuture future, long start, long nanos) {
    long end = spinEnd(start, nanos);
    for (int i = 1; !future.isDone() && !state.hasEnded(); i++) {
      if (!spinOnce(i, end)) {
        return false;
      }
    }
    return true;
  }

  private boolean spinUntilInput(SessionState state, long start, long nanos) {
    long end = spinEnd(start, nanos);
    for (int i = 1; !state.inputArrived(); i++) {
      if (!spinOnce(i, end)) {
        return false;
      }
    }
    return true;
  }

  /** One turn of a spin; false once the spin's time is up. Yields now and then: 2 cores. */
  private static boolean spinOnce(int i, long end) {
    if (System.nanoTime() - end >= 0L) {
      return false;
    }
    if (i % SPINS_PER_YIELD == 0) {
      Thread.yield();
    } else {
      Thread.onSpinWait();
    }
    return true;
  }
}
