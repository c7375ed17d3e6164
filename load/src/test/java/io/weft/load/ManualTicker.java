package io.weft.load;

import io.weft.load.internal.Ticker;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * A run's clock that moves only when the test moves it (netty's {@code MockTicker}): a thread
 * parked on it (the open model's dispatcher, waiting for the next arrival) wakes when the time
 * it waits for is reached by {@link #advance} or {@link #advanceTo}, never by the passing of
 * real time. {@link #awaitParked()} tells the test what time such a thread waits for.
 */
final class ManualTicker implements Ticker {
  private long now;
  /** Threads in {@link #parkUntil}, with the time each waits for. */
  private final Map<Thread, Long> parked = new HashMap<>();

  /** Starts far from zero, as {@code System.nanoTime} may. */
  ManualTicker(long start) {
    this.now = start;
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public void parkUntil(long deadlineNanos) {
    Thread me = Thread.currentThread();
    synchronized (this) {
      if (deadlineNanos - now <= 0L) {
        return;
      }
      parked.put(me, deadlineNanos);
      notifyAll();
    }
    try {
      // An advance before this park leaves the permit: the park then returns at once.
      LockSupport.park(this);
    } finally {
      synchronized (this) {
        parked.remove(me);
        notifyAll();
      }
    }
  }

  /** Moves the time on by {@code nanos} and wakes the threads whose time has come. */
  synchronized void advance(long nanos) {
    now += nanos;
    wakeDue();
  }

  /** Moves the time on to {@code time}, if it is later than now, and wakes the threads whose time has come. */
  synchronized void advanceTo(long time) {
    if (time - now > 0L) {
      now = time;
      wakeDue();
    }
  }

  private void wakeDue() {
    for (Map.Entry<Thread, Long> e : parked.entrySet()) {
      if (e.getValue() - now <= 0L) {
        LockSupport.unpark(e.getKey());
      }
    }
    notifyAll();
  }

  /**
   * Waits until a thread is parked on this ticker for a time later than now and returns the
   * earliest such time: until the clock reaches it, that thread does nothing.
   */
  synchronized long awaitParked() throws InterruptedException {
    while (true) {
      boolean any = false;
      long earliest = 0L;
      for (long until : parked.values()) {
        if (until - now > 0L && (!any || until - earliest < 0L)) {
          earliest = until;
          any = true;
        }
      }
      if (any) {
        return earliest;
      }
      wait();
    }
  }
}
