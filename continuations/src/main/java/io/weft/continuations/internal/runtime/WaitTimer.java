package io.weft.continuations.internal.runtime;

import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timeouts of a scheduler's waits: one thread, and a deadline list that costs a wait that
 * ends in time almost nothing. Arming is an append to a lock-free list (no lock, no heap sift,
 * no task object, not even a clock read); a wait that is woken or cancelled is not removed but
 * dropped by the timer thread when it next passes by, so ending a wait costs nothing here.
 *
 * <p>Waits are kept in FIFO lanes, one per timeout length (lengths within about 3% of each
 * other share a lane). The timer thread gives each new entry its deadline when it first sees
 * it: its own clock, read after the entry was appended, so no earlier than the arming, plus
 * the timeout. While any wait is pending it passes every {@link #TICK_NANOS} (and at the
 * earliest pending deadline): it stamps the new entries, drops settled ones from each lane's
 * head and fires expired ones, and stops at a lane's first pending entry, since the deadlines
 * behind it come later. Every
 * {@value #SWEEP_TICKS} ticks it walks each lane to its end, dropping settled entries that sit
 * behind a long wait and firing expired ones behind a later deadline. So a wait never fires
 * early; it fires late by up to a tick plus scheduling latency, and by at most
 * {@link #MAX_LATE_NANOS} when waits of slightly different lengths share a lane; a settled entry
 * stays on the list for at most a sweep interval. With no pending wait the thread sleeps until
 * the next one is armed.
 *
 * <p>Lifecycle: the thread starts with the timer; {@link #shutdown} ends it without firing
 * what is still pending; {@link #isTerminated} says when it is gone.
 *
 * <p>Time is read only from the {@link Ticker} given at construction (the system's unless a
 * test gives one it steps by hand, or a simulation one of virtual time); the thread's sleeps
 * between passes are real time either way, at most a tick while a wait is pending.
 */
final class WaitTimer {
  /** How often the timer thread passes while waits are pending. */
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /** Every this many ticks, a full walk of every lane. */
  static final int SWEEP_TICKS = 10;
  /** The latest a pending wait fires after its timeout, scheduling latency aside. */
  static final long MAX_LATE_NANOS = TICK_NANOS * (SWEEP_TICKS + 1);
  /** Longer timeouts are capped here, so that deadlines never overflow. */
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE >>> 2;

  /** What the timer holds: one wait's timeout, its deadline once stamped, its link in a lane. */
  abstract static class Entry {
    /** Written before the entry is appended. */
    long timeout;
    /** Timer thread only: set when it first sees the entry. */
    long deadline;
    /** Timer thread only. */
    boolean stamped;
    volatile Entry next;

    /** True while the wait has not ended (woken, cancelled or timed out). */
    abstract boolean pending();

    /** Ends the wait as timed out; called on the timer thread once the timeout has passed. */
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

  private static final Logger LOG = LoggerFactory.getLogger(WaitTimer.class);

  private final ConcurrentHashMap<Long, Lane> lanes = new ConcurrentHashMap<>();
  private final Ticker clock;
  private final Thread thread;
  /**
   * The lane used last: waits of a run mostly share one timeout length. Arming threads race to
   * set it, harmlessly; volatile so that a lane made on another thread is seen whole.
   */
  private volatile Lane recent;
  /** The timer thread sleeps until woken: no wait was pending at its last pass. */
  private volatile boolean idle;
  private volatile boolean stopped;
  /** Passes completed. Written by the timer thread only; read by tests that step the clock. */
  private volatile long passes;

  WaitTimer(String name) {
    this(name, Ticker.system());
  }

  /** A timer reading {@code clock} for every deadline. */
  WaitTimer(String name, Ticker clock) {
    this.clock = clock;
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
    entry.timeout = timeout;
    long key = laneKey(timeout);
    Lane lane = recent;
    if (lane == null || lane.key != key) {
      lane = lanes.computeIfAbsent(key, Lane::new);
      recent = lane;
    }
    lane.append(entry);
    // A timer that sleeps with waits pending passes within a tick anyway. One that sleeps
    // idle re-checks the lanes after saying so, so this misses nothing.
    if (idle) {
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

  /** Passes the timer thread has completed; with {@link #wakeUp}, how a test knows it saw a clock step. */
  long passes() {
    return passes;
  }

  /** Has the timer thread pass now rather than at its next tick. */
  void wakeUp() {
    LockSupport.unpark(thread);
  }

  private void run() {
    // A pass that fails (an OutOfMemoryError, say) must not end the thread: every pending wait
    // would then never time out, and a run with such a wait would never return. Its entries are
    // still on the lanes, so the next pass, a tick later, fires them as due.
    while (!stopped) {
      try {
        passUntilStopped();
      } catch (RuntimeException | Error e) {
        HeapExhaustion.report(e, "the wait timer");
        LOG.error("the wait timer's pass failed; passing again in a tick", e);
        LockSupport.parkNanos(this, TICK_NANOS);
      }
    }
  }

  private void passUntilStopped() {
    long lastTick = clock.nanoTime();
    int ticks = 0;
    while (!stopped) {
      long now = clock.nanoTime();
      boolean sweep = false;
      if (now - lastTick >= TICK_NANOS) {
        lastTick = now;
        sweep = ++ticks % SWEEP_TICKS == 0;
      }
      boolean pending = false;
      long next = 0L;
      for (Lane lane : lanes.values()) {
        if (lane.pass(now, sweep, clock)) {
          if (!pending || lane.earliest - next < 0L) {
            next = lane.earliest;
          }
          pending = true;
        }
      }
      passes++;
      if (!pending) {
        idle = true;
        // An entry appended after the pass: its thread may have seen idle still false. Pass
        // again at the next tick, not at once, so that a stream of waits that end at once
        // cannot keep this thread busy.
        if (!arrivedSincePass()) {
          LockSupport.park(this);
          idle = false;
          continue;
        }
        idle = false;
        next = lastTick + TICK_NANOS;
      }
      long nextTick = lastTick + TICK_NANOS;
      if (nextTick - next < 0L) {
        next = nextTick;
      }
      long wait = next - clock.nanoTime();
      if (wait > 0L) {
        LockSupport.parkNanos(this, wait);
      }
    }
  }

  private boolean arrivedSincePass() {
    for (Lane lane : lanes.values()) {
      if (lane.tail != lane.stampedTo) {
        return true;
      }
    }
    return false;
  }

  /**
   * A FIFO of entries: many appending threads, one reader (the timer thread). The append is
   * Vyukov's intrusive MPSC queue: swap the tail, then link the old tail to the new entry. Its
   * hazard, the window between those two steps: the tail already names the new entry while the
   * old tail's {@code next} is still null, so the reader sees the list end early ("the bubble").
   * The timer thread only ever treats a null {@code next} as "nothing more yet": it stamps and
   * fires what it can reach, and the entry behind the bubble is reached on a later pass, so an
   * entry is never lost and never fired before its deadline, only seen a pass later.
   */
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
    /** Timer thread only: the last entry stamped (possibly since dropped: its links still lead on). */
    Entry stampedTo = head;
    /** Timer thread only: the earliest pending deadline found by the last pass. */
    long earliest;

    Lane(long key) {
      this.key = key;
    }

    void append(Entry entry) {
      Entry prev = (Entry) TAIL.getAndSet(this, entry);
      // Release is enough: the timer reads next as a volatile, the swap above was the fence.
      NEXT.setRelease(prev, entry);
    }

    /**
     * Stamps the entries appended since the last pass, fires expired entries and unlinks
     * settled ones, from the head up to the first pending entry not yet due, or to the end when
     * sweeping; one walk does both where they overlap. Returns true if a pending entry remains,
     * its deadline in {@link #earliest}.
     */
    boolean pass(long now, boolean sweep, Ticker clock) {
      // Stamp up to the tail read here, with the clock read after it: every entry up to that
      // tail was armed before, so a deadline from it is never early. Later ones: next pass.
      Entry end = tail;
      boolean stampedAll = end == stampedTo;
      long armedBefore = stampedAll ? 0L : clock.nanoTime();
      boolean pending = false;
      Entry prev = head;
      Entry cur = prev.next;
      while (cur != null) {
        if (!cur.stamped) {
          if (stampedAll) {
            break;
          }
          stamp(cur, armedBefore);
          stampedAll = cur == end;
        }
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
          break;
        }
        prev = cur;
        cur = after;
      }
      // Stopped at a pending entry: stamp the rest (its links lead on even if since dropped).
      for (Entry last = stampedTo; !stampedAll && last != end; ) {
        Entry e = last.next;
        if (e == null) {
          break; // appended, not linked yet
        }
        if (!e.stamped) {
          stamp(e, armedBefore);
        }
        last = e;
      }
      return pending;
    }

    private void stamp(Entry e, long armedBefore) {
      e.deadline = armedBefore + e.timeout;
      e.stamped = true;
      stampedTo = e;
    }
  }
}
