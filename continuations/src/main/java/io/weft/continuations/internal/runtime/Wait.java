package io.weft.continuations.internal.runtime;

import io.weft.continuations.runtime.spi.SessionWait;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.SuspendableSession;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One wait of one fiber. Of the three ways it can end (woken, timed out, cancelled) the first
 * wins by a compare-and-set; the others are ignored, so a late I/O wake-up after a timeout, or a
 * timer after a wake-up, never makes a fiber ready twice. A wait with a timeout is its fiber's
 * current wait in the fiber's {@link WaitTimer.Slot}; ending it early leaves the slot as it is,
 * for the timer to look at when it comes to it.
 *
 * <p>State transitions (every one a compare-and-set, so each state is left at most once):
 * <pre>
 * ARMING -> WOKEN_INLINE   the registration ran the wake-up before arming finished (fast path)
 * ARMING -> POLLED         timeout 0 and no inline wake-up
 * ARMING -> ARMED          registered; the session will suspend
 * ARMED  -> WOKEN          the wake-up ran (any thread): the fiber is made ready
 * ARMED  -> TIMED_OUT      the timer fired first: the fiber is made ready
 * ARMED  -> CANCELLED      the run was cancelled first: the fiber is made ready
 * </pre>
 * WOKEN_INLINE, POLLED, WOKEN, TIMED_OUT and CANCELLED are final. Only the three transitions out
 * of ARMED make the fiber ready, and only one of them can happen.
 *
 * <p>Implementation notes: the state starts at ARMING (0) with no store, since a volatile store
 * would cost a fence on every wait; the field's publication to other threads rides on the
 * registration's own hand-off (the wake-up reaches this object only through it).
 */
public final class Wait
    implements WaitTimer.Timed, Runnable, SuspendableSession.PendingWait, SessionWait {
  static final int ARMING = 0;
  static final int ARMED = 1;
  static final int WOKEN_INLINE = 2;
  static final int WOKEN = 3;
  static final int TIMED_OUT = 4;
  static final int CANCELLED = 5;
  /** timeout 0 and not woken during registration. */
  static final int POLLED = 6;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Wait.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Fiber fiber;
  /** Starts at 0, {@link #ARMING}, with no store: a volatile store would cost a fence. */
  private volatile int state;

  Wait(Fiber fiber) {
    this.fiber = fiber;
  }

  int get() {
    return state;
  }

  /**
   * True when this wait has ended and a wait of its fiber can take it over ({@link #rearm}): it
   * went through a registration and is over, woken, timed out or cancelled. Not while it is
   * ARMING (a registration that threw may still hold it) or ARMED.
   */
  boolean isOver() {
    int s = state;
    return s != ARMING && s != ARMED;
  }

  /**
   * Makes this ended wait new again, for its fiber's next wait: only under a driven scheduler, on
   * its one thread, and only once no registration still holds it (see {@code Fiber.arm}). A plain
   * store: nothing on another thread reads it.
   */
  void rearm() {
    STATE.set(this, ARMING);
  }

  boolean compareAndSet(int expected, int next) {
    return STATE.compareAndSet(this, expected, next);
  }

  /** The wake-up handed to the transport's registration. */
  @Override
  public void run() {
    for (;;) {
      int s = state;
      if (s == ARMING) {
        if (compareAndSet(ARMING, WOKEN_INLINE)) {
          return;
        }
      } else if (s == ARMED) {
        if (compareAndSet(ARMED, WOKEN)) {
          fiber.wake();
        }
        return;
      } else {
        return;
      }
    }
  }

  /** For the timer: {@link #isPending()}. */
  @Override
  public boolean pending() {
    return state == ARMED;
  }

  /**
   * True while the wait is armed and has not ended.
   *
   * @return true until it is woken, timed out or cancelled
   */
  @Override
  public boolean isPending() {
    return state == ARMED;
  }

  /**
   * The index of the session that waits.
   *
   * @return the session's index in its run
   */
  @Override
  public int session() {
    return fiber.index();
  }

  /** For the timer: {@link #timeOut()}. */
  @Override
  public void expire() {
    timeOut();
  }

  /** Ends the wait as timed out, unless it has ended already; the fiber is made ready. */
  @Override
  public void timeOut() {
    if (compareAndSet(ARMED, TIMED_OUT)) {
      fiber.wake();
    }
  }

  void cancel() {
    if (compareAndSet(ARMED, CANCELLED)) {
      fiber.wake();
    }
  }

  /**
   * True once the registration has returned and the wait is armed or over: a wake-up run from
   * now on can no longer take the fast path, so the session really suspends (or already did).
   */
  public boolean isPastRegistration() {
    return state != ARMING;
  }

  /** True when the wait ended without suspending (fast path, or a poll). */
  @Override
  public boolean isSettled() {
    int s = state;
    return s == WOKEN_INLINE || s == POLLED;
  }

  /** What {@code Suspend.await} returns once this wait has ended. */
  @Override
  public boolean result() throws SessionCancelledException {
    int s = state;
    switch (s) {
      case WOKEN_INLINE:
      case WOKEN:
        return true;
      case TIMED_OUT:
      case POLLED:
        return false;
      case CANCELLED:
        throw fiber.cancelledException();
      default:
        throw new IllegalStateException("continuation resumed before its wait ended: state " + s);
    }
  }
}
