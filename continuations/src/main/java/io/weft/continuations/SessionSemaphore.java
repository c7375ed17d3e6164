package io.weft.continuations;

import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.TimedRegistration;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;
import java.io.IOException;
import java.util.ArrayDeque;
import org.apache.commons.javaflow.api.continuable;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * A counting semaphore for session code that must hold a permit across transport calls. In a
 * {@code CONTINUATIONS} session, waiting for a permit suspends the session, so the worker runs
 * other sessions meanwhile (a {@code java.util.concurrent.Semaphore} would block the worker and
 * every session queued behind it, possibly forever); on an ordinary thread it blocks the
 * thread, so the same client works in every mode.
 *
 * <p>Permits are not owned: any session may release. Waiters are woken in arrival order, but a
 * session that arrives while permits are free takes one at once (no strict fairness). One
 * semaphore may be shared by the sessions of several runs and by plain threads; it holds no
 * thread and needs no closing.
 */
public final class SessionSemaphore {
  private final Object lock = new Object();
  private final ArrayDeque<Runnable> waiters = new ArrayDeque<>();
  private int permits;

  /**
   * A semaphore with {@code permits} free permits.
   *
   * @param permits the number of permits at the start, at least 0
   * @throws IllegalArgumentException if {@code permits < 0}
   */
  public SessionSemaphore(int permits) {
    if (permits < 0) {
      throw new IllegalArgumentException("permits < 0: " + permits);
    }
    this.permits = permits;
  }

  /**
   * Takes a permit, suspending (or blocking) until one is free.
   *
   * @throws SessionCancelledException if the session's run is cancelled while it waits
   * @throws java.io.InterruptedIOException if a blocked (non-continuation) caller is interrupted
   */
  @continuable
  public void acquire() throws IOException {
    acquire(Deadlines.FOREVER);
  }

  /**
   * Takes a permit if one is free within {@code timeoutNanos}.
   *
   * @return true if a permit was taken, false if the time ran out first
   * @param timeoutNanos the longest wait in nanoseconds
   * @throws IOException if the session is cancelled while it waits
   */
  @continuable
  public boolean acquire(long timeoutNanos) throws IOException {
    if (timeoutNanos < 0L) {
      throw new IllegalArgumentException("timeoutNanos < 0: " + timeoutNanos);
    }
    // The deadline on the clock the wait is timed by: in a CONTINUATIONS session its run's (its
    // connector's), which the run's timer reads; on an ordinary thread the system's, which the
    // blocked thread's timed wait follows.
    Ticker clock = timeoutNanos == Deadlines.FOREVER ? null : clock();
    long deadline = clock == null ? 0L : clock.nanoTime() + timeoutNanos;
    boolean done = false;
    try {
      while (!tryAcquire()) {
        long now = clock == null ? 0L : clock.nanoTime();
        long left = clock == null ? Deadlines.FOREVER : deadline - now;
        // A timed wait is timed from the reading it was worked out on: it ends at the deadline,
        // wherever the clock has moved since (see TimedRegistration).
        if (left <= 0L) {
          return false;
        }
        WaitRegistration waiter = clock == null ? this::register : new TimedWaiter(clock, now);
        if (!Suspend.await(waiter, left)) {
          return false;
        }
      }
      done = true;
      return true;
    } finally {
      if (!done) {
        // Whatever wake-up this waiter was given may have been meant to hand it a permit.
        passOn();
      }
    }
  }

  /**
   * The clock of the caller's timed waits: the running Weft session's ({@link Clocked}, found in
   * the continuation's context as {@code Suspend} finds it), the system's off a continuation.
   */
  private static Ticker clock() {
    StackRecorder recorder = StackRecorder.get();
    Object context = recorder == null ? null : recorder.getContext();
    return context instanceof Clocked ? ((Clocked) context).ticker() : Ticker.system();
  }

  /**
   * Takes a permit if one is free now.
   *
   * @return true if a permit was free and is now taken
   */
  public boolean tryAcquire() {
    synchronized (lock) {
      if (permits > 0) {
        permits--;
        return true;
      }
      return false;
    }
  }

  /** Gives a permit back and wakes the longest waiter, if any. */
  public void release() {
    synchronized (lock) {
      permits++;
    }
    passOn();
  }

  /**
   * Permits free now.
   *
   * @return the permits free now
   */
  public int availablePermits() {
    synchronized (lock) {
      return permits;
    }
  }

  private void register(Runnable wakeUp) {
    boolean now;
    synchronized (lock) {
      now = permits > 0;
      if (!now) {
        waiters.add(wakeUp);
      }
    }
    if (now) {
      wakeUp.run();
    }
  }

  /** A timed acquire's wait, timed from the clock reading it was worked out on. */
  private final class TimedWaiter implements TimedRegistration {
    private final Ticker clock;
    private final long from;

    TimedWaiter(Ticker clock, long from) {
      this.clock = clock;
      this.from = from;
    }

    @Override
    public Ticker timedOn() {
      return clock;
    }

    @Override
    public void register(Runnable wakeUp) {
      SessionSemaphore.this.register(wakeUp);
    }

    @Override
    public long timedFrom() {
      return from;
    }
  }

  private void passOn() {
    Runnable next;
    synchronized (lock) {
      next = permits > 0 ? waiters.poll() : null;
    }
    if (next != null) {
      next.run();
    }
  }

  @Override
  public String toString() {
    return "SessionSemaphore[permits " + availablePermits() + "]";
  }

}
