package io.weft.continuations.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The timeouts of a scheduler's waits: one thread, and a deadline list that costs a wait that
 * ends in time almost nothing. Arming is an append to a lock-free list (no lock, no heap
 * sift, no task object); a wait that is woken or cancelled is not removed but dropped by the
 * timer thread when it next passes by, so ending a wait costs nothing here.
 *
 * <p>Waits are kept in FIFO lanes, one per timeout length (lengths within about 3% of each
 * other share a lane). The waits of a run mostly share one length, so in a lane the deadlines
 * come in order and the timer only looks at a lane's head: it drops settled entries there, fires
 * expired ones, and sleeps until the earliest pending head's deadline. While any wait is
 * pending it also wakes every {@link #TICK_NANOS} to drop settled entries from the heads, and
 * every {@value #SWEEP_TICKS} ticks walks each lane to its end, dropping settled entries behind
 * a long wait and firing expired ones that sit behind a later deadline. So a wait never fires
 * early; it fires late by scheduling latency, or at worst by the lane's spread of lengths or a
 * sweep interval ({@link #MAX_LATE_NANOS}); and a settled entry stays on the list for at most a
 * sweep interval.
 *
 * <p>Lifecycle: the thread starts with the timer; {@link #shutdown} ends it without firing
 * what is still pending; {@link #isTerminated} says when it is gone.
 */
final class WaitTimer {
  /** How often the timer thread wakes while waits are pending, to drop settled ones. */
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** Every this many ticks, a full walk of every lane. */
  static final int SWEEP_TICKS = 10;
  /** The latest a pending wait fires after its deadline, scheduling latency aside. */
  static final long MAX_LATE_NANOS = TICK_NANOS * SWEEP_TICKS;
  /** Longer timeouts are capped here, so that deadlines never overflow. */
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE >>> 2;

  /** What the timer holds: one wait's deadline and its link in a lane. */
  abstract static class Entry {
    /** Written before the entry is appended, read by the timer thread after. */
    long deadline;
    volatile Entry next;

    /** True while the wait has not ended (woken, cancelled or timed out). */
    abstract boolean pending();

    /** Ends the wait as timed out; called on the timer thread once the deadline has passed. */
    abstract void expire();
  }

  private static final VarHandle TAIL;
  private static final VarHandle NEXT;

  static {
    try {
      TAIL = MethodHandles.lookup().findVarHandle(Lane.class, "tail", Entry.class);
      NEXT = MethodHandles.lookup().findVarHandle(Entry.class, "next", Entry.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final ConcurrentHashMap<Long, Lane> lanes = new ConcurrentHashMap<>();
  private final Thread thread;
  /** The lane used last: waits of a run mostly share one timeout length. Racy by design. */
  private Lane recent;
  private volatile boolean sleeping;
  private volatile long sleepUntil;
  private volatile boolean stopped;

  WaitTimer(String name) {
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Arms a timeout of {@code timeoutNanos} (> 0) for {@code entry}: unless it has ended by then,
   * its {@link Entry#expire()} runs on the timer thread once that time has passed. Any thread.
   */
  void add(Entry entry, long timeoutNanos) {
    long timeout = Math.min(timeoutNanos, MAX_TIMEOUT_NANOS);
    long deadline = System.nanoTime() + timeout;
    entry.deadline = deadline;
    long key = laneKey(timeout);
    Lane lane = recent;
    if (lane == null || lane.key != key) {
      lane = lanes.computeIfAbsent(key, Lane::new);
      recent = lane;
    }
    lane.append(entry);
    // The timer re-checks the lanes after it says it sleeps, so this misses nothing.
    if (sleeping && deadline - sleepUntil < 0L) {
      LockSupport.unpark(thread);
    }
  }

  /**
   * Timeout lengths that share a lane: the same top 6 significant bits, so lengths within
   * 1/32 of each other; the spread caps how far out of order deadlines come in a lane.
   */
  static long laneKey(long timeoutNanos) {
    int shift = Math.max(0, 58 - Long.numberOfLeadingZeros(timeoutNanos));
    return ((long) shift << 8) | (timeoutNanos >>> shift);
  }

  /** Ends the timer thread; pending waits never fire. Returns at once. */
  void shutdown() {
    stopped = true;
    LockSupport.unpark(thread);
  }

  void awaitTermination(long millis) throws InterruptedException {
    thread.join(Math.max(1L, millis));
  }

  boolean isTerminated() {
    return !thread.isAlive();
  }

  private void run() {
    long lastTick = System.nanoTime();
    int ticks = 0;
    while (!stopped) {
      sleeping = false;
      long now = System.nanoTime();
      boolean tick = now - lastTick >= TICK_NANOS;
      boolean sweep = false;
      if (tick) {
        lastTick = now;
        sweep = ++ticks % SWEEP_TICKS == 0;
      }
      boolean pending = false;
      long next = 0L;
      for (Lane lane : lanes.values()) {
        if (lane.pass(now, sweep)) {
          if (!pending || lane.earliest - next < 0L) {
            next = lane.earliest;
          }
          pending = true;
        }
      }
      if (!pending) {
        next = now + MAX_TIMEOUT_NANOS;
      }
      sleepUntil = next;
      sleeping = true;
      if (changedSincePass()) {
        // An entry came after the pass and its thread may have seen us awake: look again at
        // the next tick at the latest, not at once, so that a stream of waits cannot keep
        // this thread busy.
        pending = true;
      }
      if (pending) {
        long nextTick = lastTick + TICK_NANOS;
        if (nextTick - next < 0L) {
          next = nextTick;
          sleepUntil = next;
        }
        long wait = next - System.nanoTime();
        if (wait > 0L) {
          LockSupport.parkNanos(this, wait);
        }
      } else {
        LockSupport.park(this);
      }
    }
    sleeping = false;
  }

  /**
   * True if a lane that the last pass walked to its end got an entry since (or one whose link
   * was not yet visible). A lane the pass left at a pending entry is looked at again at the
   * next tick anyway.
   */
  private boolean changedSincePass() {
    for (Lane lane : lanes.values()) {
      if (lane.reached != null && lane.tail != lane.reached) {
        return true;
      }
    }
    return false;
  }

  /** A FIFO of entries: many appending threads, one reader (the timer thread). */
  private static final class Lane {
    final long key;
    /** A permanent sentinel; the entries follow it. */
    private final Entry head = new Entry() {
      @Override
      boolean pending() {
        return false;
      }

      @Override
      void expire() {
      }
    };
    @SuppressWarnings("unused") // through TAIL
    volatile Entry tail = head;
    /** Timer thread only: the earliest pending deadline found by the last pass. */
    long earliest;
    /** Timer thread only: the last entry of the last pass if it walked to the end, or null. */
    Entry reached = head;

    Lane(long key) {
      this.key = key;
    }

    void append(Entry entry) {
      Entry prev = (Entry) TAIL.getAndSet(this, entry);
      // Release is enough: the timer reads next as a volatile, the swap above was the fence.
      NEXT.setRelease(prev, entry);
    }

    /**
     * Fires expired entries and unlinks settled ones, from the head up to the first pending
     * entry not yet due, or to the end when sweeping. Returns true if a pending entry remains,
     * its deadline in {@link #earliest}.
     */
    boolean pass(long now, boolean sweep) {
      boolean pending = false;
      Entry prev = head;
      Entry cur = prev.next;
      while (cur != null) {
        Entry after = cur.next;
        if (cur.pending() && cur.deadline - now <= 0L) {
          cur.expire();
        }
        if (!cur.pending()) {
          if (after == null) {
            break; // the last entry stays linked: appending threads link to it
          }
          prev.next = after;
          cur = after;
          continue;
        }
        if (!pending || cur.deadline - earliest < 0L) {
          earliest = cur.deadline;
        }
        pending = true;
        if (!sweep) {
          reached = null;
          return true;
        }
        prev = cur;
        cur = after;
      }
      reached = cur == null ? prev : cur;
      return pending;
    }
  }
}
