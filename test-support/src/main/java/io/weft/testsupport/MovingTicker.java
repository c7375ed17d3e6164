package io.weft.testsupport;

import io.weft.transport.spi.Ticker;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told, and can be told to move at an exact point of a session's
 * code: right after the calling thread has read it a given number of times ({@link
 * #moveAfterReads}). That is where a move made by another thread (a test's driver stepping the
 * clock) falls in the worst case; here it falls there every time, so a wait worked out on one
 * reading and timed from a later one is caught by a plain run, not by a rare interleaving.
 *
 * <p>{@link #runAfterReads} runs an action at such a point instead (a test server's release,
 * say), so that what it starts happens after that reading of the clock and not before.
 *
 * <p>It starts a year behind {@link System#nanoTime()}: a wait that mixes the two clocks ends at
 * once or never.
 */
public final class MovingTicker implements Ticker {
  private final AtomicLong now = new AtomicLong(System.nanoTime() - TimeUnit.DAYS.toNanos(365));
  /** The thread whose reads count down to the move, or null. */
  private volatile Thread counted;
  /** Written before {@link #counted}, read by that thread only. */
  private int readsLeft;
  private long target;
  /** Written before {@link #counted}, read by that thread only: run instead of the move, or null. */
  private Runnable action;

  @Override
  public long nanoTime() {
    long t = now.get();
    if (counted == Thread.currentThread() && --readsLeft == 0) {
      counted = null;
      Runnable a = action;
      action = null;
      if (a != null) {
        a.run();
      } else {
        now.set(target);
      }
    }
    return t;
  }

  /**
   * Moves this clock to {@code target} right after the calling thread's next {@code reads} reads
   * of it (the last of them still returns the time before the move); reads by other threads do
   * not count.
   *
   * @param reads the calling thread's reads to let through first, at least 1
   * @param target the time the clock reads from then on
   */
  public void moveAfterReads(int reads, long target) {
    if (reads < 1) {
      throw new IllegalArgumentException("reads < 1: " + reads);
    }
    this.readsLeft = reads;
    this.target = target;
    this.action = null;
    counted = Thread.currentThread();
  }

  /**
   * Runs {@code action} on the calling thread right after its next {@code reads} reads of this
   * clock (inside the last of them, which still returns what it read), without moving the clock;
   * reads by other threads do not count. Replaces a move or action not yet made.
   *
   * @param reads the calling thread's reads to let through first, at least 1
   * @param action what to run, once; quick, never blocking
   */
  public void runAfterReads(int reads, Runnable action) {
    if (reads < 1) {
      throw new IllegalArgumentException("reads < 1: " + reads);
    }
    this.readsLeft = reads;
    this.action = Objects.requireNonNull(action, "action");
    counted = Thread.currentThread();
  }

  @Override
  public String toString() {
    return "MovingTicker[" + now.get() + "]";
  }
}
