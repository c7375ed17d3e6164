package io.weft.transport.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Times out blocking writes that the JDK cannot time out (a {@code java.net.Socket}'s
 * {@code SO_TIMEOUT} bounds reads only): one shared daemon thread, {@value #THREAD_NAME}, that
 * runs a {@link Watch}'s {@link Watch#expired()} (which closes the socket, so that the blocked
 * write fails at once) when the watch stays armed past its deadline. The scheme is okio's
 * {@code AsyncTimeout}: the node is the caller's own object, armed before the write and disarmed
 * after it, so a write allocates nothing.
 *
 * <p>The armed watches form a doubly linked list sorted by deadline, behind one lock. A new
 * deadline is placed by walking from the tail, since writes armed with the same timeout arrive in
 * deadline order: arming and disarming are O(1) in the common case. The thread is woken only when
 * a watch's deadline comes before the one it is asleep until, which, while writes keep coming with
 * one timeout, is at most once per timeout, not once per write.
 *
 * <p>Lifecycle: the thread starts with the first armed watch and ends after
 * {@link #IDLE_NANOS} with none armed; the next arm starts a new one. Nothing of a watch is kept
 * once it is disarmed. The thread is the process's, not any run's or connector's: closing a
 * connector does not end it, and a leak check counts it only while {@link #armedCount()} is above
 * zero (with nothing armed it references no transport and ends by itself, however late a loaded
 * machine lets it wake).
 */
public final class WriteWatchdog {
  /** The watchdog thread's name. */
  public static final String THREAD_NAME = "weft-write-watchdog";

  /** How long the thread waits with nothing armed before it ends. */
  static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final ReentrantLock LOCK = new ReentrantLock();
  private static final Condition CHANGED = LOCK.newCondition();

  /** The list's sentinel: {@code HEAD.next} is the earliest deadline, {@code HEAD.prev} the latest. */
  private static final Watch HEAD = new Sentinel();

  // All guarded by LOCK.
  private static Thread thread;
  /** True while the thread waits on {@link #CHANGED}, until {@link #wakeAt} at the latest. */
  private static boolean asleep;
  private static long wakeAt;
  private static int armed;

  private WriteWatchdog() {}

  /**
   * How many watches are armed now, for tests: after every write has returned, 0.
   *
   * @return the count, read under the watchdog's lock
   */
  public static int armedCount() {
    LOCK.lock();
    try {
      return armed;
    } finally {
      LOCK.unlock();
    }
  }

  /**
   * One writer's timer, made once and armed around each write. Not for concurrent arming: one
   * thread arms and disarms it; the watchdog thread expires it.
   *
   * <p>States (guarded by the watchdog's lock): {@code IDLE -> ARMED} ({@link #arm});
   * {@code ARMED -> IDLE} ({@link #disarm}, in time); {@code ARMED -> EXPIRED} (the watchdog, at
   * the deadline, then {@link #expired()} outside the lock); {@code EXPIRED -> IDLE}
   * ({@link #disarm}, which then returns true).
   */
  public abstract static class Watch {
    private static final int IDLE = 0;
    private static final int ARMED = 1;
    private static final int EXPIRED = 2;

    private int state;
    private long deadline;
    private Watch prev;
    private Watch next;

    /** An idle watch; a subclass says in {@link #expired()} how to end its write. */
    protected Watch() {}

    /**
     * What to do at the deadline, on the watchdog thread: make the blocked write fail (close its
     * socket). It must not block, or every other armed write waits behind it. It may run after
     * {@link #disarm} has returned true.
     */
    protected abstract void expired();

    /**
     * Arms this watch to expire {@code waitNanos} from now; called by the writing thread just
     * before a write that may block. Starts the watchdog thread if it is not running.
     *
     * @param waitNanos the time the write may take ({@link Deadlines#waitNanos}); very long
     *     waits, {@link Deadlines#FOREVER} included, are capped at about 146 years
     * @throws IllegalStateException if it is armed already
     */
    public final void arm(long waitNanos) {
      // Capped so that deadlines stay comparable by subtraction (nanoTime may wrap).
      long at = System.nanoTime() + Math.min(waitNanos, Long.MAX_VALUE >> 1);
      LOCK.lock();
      try {
        if (state != IDLE) {
          throw new IllegalStateException("write watch armed twice");
        }
        state = ARMED;
        deadline = at;
        armed++;
        // From the tail: with one timeout for all, the newest deadline is the latest.
        Watch before = HEAD.prev;
        while (before != HEAD && at - before.deadline < 0L) {
          before = before.prev;
        }
        prev = before;
        next = before.next;
        before.next = this;
        next.prev = this;
        if (thread == null) {
          start();
        } else if (before == HEAD && asleep && at - wakeAt < 0L) {
          CHANGED.signal();
        }
      } finally {
        LOCK.unlock();
      }
    }

    /**
     * Disarms this watch after the write it guarded returned or failed.
     *
     * @return true if it expired first (its {@link #expired()} has run or is about to)
     */
    public final boolean disarm() {
      LOCK.lock();
      try {
        int was = state;
        state = IDLE;
        if (was == ARMED) {
          unlink(this);
          return false;
        }
        return was == EXPIRED;
      } finally {
        LOCK.unlock();
      }
    }

    /** True while armed and not expired. */
    final boolean isArmed() {
      LOCK.lock();
      try {
        return state == ARMED;
      } finally {
        LOCK.unlock();
      }
    }
  }

  private static final class Sentinel extends Watch {
    Sentinel() {
      // A list of one: the sentinel's links are never null.
      Watch self = this;
      self.prev = self;
      self.next = self;
    }

    @Override
    protected void expired() {
      throw new AssertionError("the sentinel never expires");
    }
  }

  private static void unlink(Watch w) {
    w.prev.next = w.next;
    w.next.prev = w.prev;
    w.prev = null;
    w.next = null;
    armed--;
  }

  /** Called with the lock held. */
  private static void start() {
    Thread t = new Thread(WriteWatchdog::watch, THREAD_NAME);
    t.setDaemon(true);
    // Not the arming thread's loader: the watchdog outlives sessions and must not pin their classes.
    t.setContextClassLoader(null);
    thread = t;
    asleep = false;
    t.start();
  }

  private static void watch() {
    while (true) {
      Watch due = awaitDue();
      if (due == null) {
        return;
      }
      try {
        due.expired();
      } catch (RuntimeException e) {
        // A watch's own failure to close must not stop the others' timers.
      }
    }
  }

  /** Waits for the earliest deadline and unlinks its watch; null once idle long enough to end. */
  private static Watch awaitDue() {
    LOCK.lock();
    try {
      long idleSince = System.nanoTime();
      while (true) {
        Watch first = HEAD.next;
        long now = System.nanoTime();
        if (first == HEAD) {
          long idle = now - idleSince;
          if (idle >= IDLE_NANOS) {
            thread = null;
            return null;
          }
          sleepUntil(now + IDLE_NANOS - idle, IDLE_NANOS - idle);
          continue;
        }
        idleSince = now;
        long left = first.deadline - now;
        if (left > 0L) {
          sleepUntil(first.deadline, left);
          continue;
        }
        unlink(first);
        first.state = Watch.EXPIRED;
        return first;
      }
    } finally {
      LOCK.unlock();
    }
  }

  private static void sleepUntil(long at, long nanos) {
    asleep = true;
    wakeAt = at;
    try {
      CHANGED.awaitNanos(nanos);
    } catch (InterruptedException e) {
      // Nobody interrupts this thread on purpose; the loop re-reads the list either way.
    } finally {
      asleep = false;
    }
  }
}
