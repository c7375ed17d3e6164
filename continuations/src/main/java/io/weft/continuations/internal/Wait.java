package io.weft.continuations.internal;

import io.weft.continuations.SessionCancelledException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One wait of one fiber. Of the three ways it can end (woken, timed out, cancelled) the first
 * wins by a compare-and-set; the others are ignored, so a late I/O wake-up after a timeout, or a
 * timer after a wake-up, never makes a fiber ready twice.
 */
public final class Wait extends AtomicInteger implements Runnable {
  private static final long serialVersionUID = 1L;

  static final int ARMING = 0;
  static final int ARMED = 1;
  static final int WOKEN_INLINE = 2;
  static final int WOKEN = 3;
  static final int TIMED_OUT = 4;
  static final int CANCELLED = 5;
  /** timeout 0 and not woken during registration. */
  static final int POLLED = 6;

  private final Fiber fiber;
  volatile Future<?> timer;

  Wait(Fiber fiber) {
    this.fiber = fiber;
  }

  /** The wake-up handed to the transport's registration. */
  @Override
  public void run() {
    for (;;) {
      int s = get();
      if (s == ARMING) {
        if (compareAndSet(ARMING, WOKEN_INLINE)) {
          return;
        }
      } else if (s == ARMED) {
        if (compareAndSet(ARMED, WOKEN)) {
          Future<?> t = timer;
          if (t != null) {
            t.cancel(false);
          }
          fiber.wake();
        }
        return;
      } else {
        return;
      }
    }
  }

  void timeOut() {
    if (compareAndSet(ARMED, TIMED_OUT)) {
      fiber.wake();
    }
  }

  void cancel() {
    if (compareAndSet(ARMED, CANCELLED)) {
      Future<?> t = timer;
      if (t != null) {
        t.cancel(false);
      }
      fiber.wake();
    }
  }

  /** True when the wait ended without suspending (fast path, or a poll). */
  public boolean isSettled() {
    int s = get();
    return s == WOKEN_INLINE || s == POLLED;
  }

  /** What {@code Suspend.await} returns once this wait has ended. */
  public boolean result() throws SessionCancelledException {
    switch (get()) {
      case WOKEN_INLINE:
      case WOKEN:
        return true;
      case TIMED_OUT:
      case POLLED:
        return false;
      case CANCELLED:
        throw fiber.cancelledException();
      default:
        throw new IllegalStateException("continuation resumed before its wait ended: state " + get());
    }
  }
}
