package io.weft.continuations.internal.runtime;

import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timeouts of a scheduler's waits: one thread, and a lazily re-armed deadline per session, so
 * that a wait that ends in time costs the timer nothing at all: no entry appended, none removed.
 *
 * <p>Each session owns one {@link Slot}, which goes to the timer at its first timed wait and
 * stays there while the session keeps waiting. Arming a wait writes the slot's deadline (one
 * clock read, or none where the arming thread hands the reading its timeout was worked out on:
 * {@link #armFrom}) and its current wait; that is all, as long as the timer holds the slot filed
 * by a deadline no later than the new one. The timer thread keeps its slots in a min-heap of its own,
 * ordered by the deadline ({@code key}) each had when the timer last filed it. A session's
 * later waits have later deadlines unless they are shorter, and a shorter one hands its slot
 * over again to be moved up, so the heap's order is safe to act on lazily: when a slot's key
 * comes, the timer fires its wait if that wait is still pending and due, files the slot by the
 * later deadline of a wait armed since, or lets the slot go if no wait is pending (the
 * session's next timed wait hands it over again). So a session that keeps waiting costs the
 * timer one heap step per timeout length, not one per wait.
 *
 * <p>Slots reach the timer through a lock-free queue, read at every pass. While any slot is held
 * the timer sleeps until the earliest recorded deadline ({@link #nextPass()}), or for
 * {@link #HOUSEKEEPING_NANOS} if that comes first; with none it sleeps until a slot arrives. A
 * slot handed over with a deadline before the timer's next pass wakes it ({@link #arm}), so a
 * wait that ends in time costs no wake-up of the timer thread, and a session that keeps
 * waiting costs one per timeout length. A wait never fires
 * early (its deadline is its arming thread's clock, read before the wait is published to the
 * timer, plus the timeout); it fires late by at most
 * {@link #SLACK_NANOS}, for a wait a little shorter than its session's previous one, plus the
 * timer thread's wake-up latency ({@link #MAX_LATE_NANOS}); after a pass that failed, by up to
 * {@link #RETRY_NANOS} more. A session that ends
 * {@linkplain #retire retires} its slot, which the timer then drops at its next pass: nothing of
 * an ended session stays with the timer for longer than {@link #HOUSEKEEPING_NANOS}, and what
 * stays meanwhile is the slot alone, its wait let go.
 *
 * <p>Handing a slot back and forth is a handshake on its {@code filed} flag (0: the timer does
 * not hold it; 1: it does, or it is on its way): the arming thread publishes its wait and then
 * reads the flag; the timer clears the flag and then reads the wait. With both volatile, at
 * least one of them sees the other's write, so a pending wait is never left without its slot
 * held (Dekker's pattern); whichever wins the flag's compare-and-set files the slot once.
 *
 * <p>Lifecycle: the thread starts with the timer; {@link #shutdown} ends it without firing what
 * is still pending; {@link #isTerminated} says when it is gone.
 *
 * <p>Time is read only from the {@link Ticker} given at construction (the system's unless a test
 * gives one it steps by hand), by the arming threads and by the timer thread alike. The thread's
 * sleeps between passes are real time either way, at most {@link #HOUSEKEEPING_NANOS} while a slot
 * is held, so a caller that steps an injected clock must call {@link #wakeUp()} for the timer to
 * see the step.
 */
final class WaitTimer {
  /**
   * The longest the timer thread sleeps while it holds slots, its deadlines all later: how long a
   * retired slot, or one handed over for a deadline later than the next pass, waits in the
   * arrivals queue at most.
   */
  static final long HOUSEKEEPING_NANOS = TimeUnit.SECONDS.toNanos(1);
  /** The pause after a pass that failed, before the timer passes again (at most the housekeeping sleep). */
  static final long RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  /**
   * How much earlier than the deadline its slot is filed by a wait's deadline may be without
   * handing the slot over again. A wait bounded by its session's deadline has the same deadline
   * as the session's last one, give or take the nanoseconds between two clock reads: without this
   * slack every other such wait would hand its slot over.
   */
  static final long SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  /** The latest a pending wait fires after its deadline, scheduling latency aside. */
  static final long MAX_LATE_NANOS = SLACK_NANOS;
  /** Longer timeouts are capped here, so that deadlines never overflow. */
  private static final long MAX_TIMEOUT_NANOS = Long.MAX_VALUE >>> 2;

  /** A wait as the timer sees it. */
  interface Timed {
    /** True while the wait has not ended (woken, cancelled or timed out). */
    boolean pending();

    /** Ends the wait as timed out; called on the timer thread once its deadline has passed. */
    void expire();
  }

  /**
   * One session's place with the timer, re-armed for each of its timed waits. Only the session
   * (one thread at a time) arms and retires it; the rest is the timer thread's.
   */
  static final class Slot {
    /** The current wait's deadline: written by the arming thread before {@link #current}. */
    long deadline;
    /** The current (or last) timed wait; null once retired. */
    volatile Timed current;
    volatile boolean retired;
    /** 1 while the timer holds this slot or it is queued for the timer; see the class javadoc. */
    @SuppressWarnings("unused") // through FILED
    volatile int filed;
    /**
     * The deadline the timer orders this slot by: written by the timer thread only, read by the
     * arming thread, which hands the slot over again when its new deadline is earlier.
     */
    volatile long key;
    /** Timer thread only: the slot's place in the heap, -1 when not there. */
    int heapIndex = -1;
  }

  private static final VarHandle FILED;

  static {
    try {
      FILED = MethodHandles.lookup().findVarHandle(Slot.class, "filed", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(WaitTimer.class);
  /** For the report; not a constant, so that its literal is made as the class loads, not when the heap is full. */
  private static final String TIMER;

  static {
    TIMER = "the wait timer";
    // Links the stamp's call as the class loads, not first on a heap's-end path.
    HeapExhaustion.stamp();
  }

  private final Ticker clock;
  private final Thread thread;
  /** Slots handed to the timer: at a session's first timed wait, again when given back, and at retirement. */
  private final ConcurrentLinkedQueue<Slot> arrivals = new ConcurrentLinkedQueue<>();
  /** Timer thread only. */
  private final SlotHeap heap = new SlotHeap();
  /** The timer thread sleeps until woken: it held no slot at its last pass. */
  private volatile boolean idle;
  /**
   * While not idle: the clock's time of the timer's next pass (its earliest deadline, or a
   * housekeeping pass), written before it checks the arrivals and sleeps; see {@link #arm}.
   */
  private volatile long nextPass;
  private final long housekeepingNanos;
  private volatile boolean stopped;
  /** Passes completed. Written by the timer thread only; read by tests that step the clock. */
  private volatile long passes;
  /** Slots taken from the arrivals and filed; timer thread only, read by tests between passes. */
  private long filings;

  WaitTimer(String name) {
    this(name, Ticker.system());
  }

  /** A timer reading {@code clock} for every deadline. */
  WaitTimer(String name, Ticker clock) {
    this(name, clock, HOUSEKEEPING_NANOS);
  }

  /**
   * A timer reading {@code clock} whose sleeps while it holds slots last at most
   * {@code housekeepingNanos}: for tests, which make it long so that only deadlines and
   * {@link #arm} wake the timer.
   */
  WaitTimer(String name, Ticker clock, long housekeepingNanos) {
    if (housekeepingNanos <= 0L) {
      throw new IllegalArgumentException("housekeeping sleep " + housekeepingNanos + " ns, not > 0");
    }
    this.clock = clock;
    this.housekeepingNanos = housekeepingNanos;
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Arms a timeout of {@code timeoutNanos} (> 0) for {@code wait}, now {@linkplain Timed#pending
   * pending}, in the session's {@code slot}: unless it has ended by then, its
   * {@link Timed#expire()} runs on the timer thread once that time has passed. Only the thread
   * that runs the session, one wait at a time: a slot's earlier wait has ended before it arms
   * the next.
   */
  void arm(Slot slot, Timed wait, long timeoutNanos) {
    armFrom(slot, wait, clock, clock.nanoTime(), timeoutNanos);
  }

  /**
   * As {@link #arm}, the timeout counted from {@code from}, a reading of {@code readOn} that the
   * arming thread took before it published the wait: the reading the wait's timeout was worked
   * out on. When {@code readOn} is this timer's clock, its {@link Timed#expire()} runs once the
   * clock reads {@code from + timeoutNanos}, not a nanosecond before: the same deadline however far
   * the clock moved since {@code from} (a wait armed from a second reading would end that much
   * later; on a clock stepped by hand, a step between the two readings would put its end past the
   * clock's last move), and no clock read here. A reading of another clock tells nothing of this
   * timer's time, and null means no reading (a {@code TimedRegistration} whose reading is spent):
   * the timeout then counts from this clock's reading now, as in {@link #arm}.
   */
  void armFrom(Slot slot, Timed wait, Ticker readOn, long from, long timeoutNanos) {
    long start = readOn == clock ? from : clock.nanoTime();
    long deadline = start + Math.min(timeoutNanos, MAX_TIMEOUT_NANOS);
    slot.deadline = deadline;
    slot.current = wait;
    // Filed (or queued) by a deadline no later than this one, give or take the slack: the timer
    // comes to it in time. Otherwise (not held, or held for later: this wait is shorter) hand it
    // over. Whoever wins the flag writes the key: here, this deadline, which the slot keeps while
    // it is queued (the timer writes the key only once it has taken the slot from the queue), so
    // that a shorter wait armed before the timer takes it is handed over again, and wakes it.
    boolean handOver;
    if (slot.filed == 0 && FILED.compareAndSet(slot, 0, 1)) {
      slot.key = deadline;
      handOver = true;
    } else {
      handOver = slot.key - deadline > SLACK_NANOS;
    }
    if (handOver) {
      arrivals.offer(slot);
      // Wake the timer only if it would otherwise pass after this deadline. Dekker's pattern
      // with passUntilStopped: the timer publishes its next pass (or idle) and then re-checks
      // the arrivals; this publishes the arrival and then reads those. So either the timer sees
      // this slot before it sleeps, or this sees the pass it sleeps until.
      if (idle || deadline - nextPass < 0L) {
        LockSupport.unpark(thread);
      }
    }
  }

  /**
   * The session that owns {@code slot} has ended: it arms no more, and the timer drops the slot
   * at its next pass. Only the session's thread.
   */
  void retire(Slot slot) {
    slot.current = null;
    slot.retired = true;
    if (slot.filed != 0) {
      arrivals.offer(slot);
    }
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

  /**
   * The clock's time at which the timer, holding slots, plans its next pass unless woken; for
   * tests, read while it sleeps.
   */
  long nextPass() {
    return nextPass;
  }

  /** Passes the timer thread has completed; with {@link #wakeUp}, how a test knows it saw a clock step. */
  long passes() {
    return passes;
  }

  /** Slots handed over and filed so far; for tests, read between passes. */
  long filings() {
    return filings;
  }

  /** Slots the timer holds now; for tests, read between passes. */
  int held() {
    return heap.size;
  }

  /** The timer's thread; for tests, which watch whether it sleeps. */
  Thread thread() {
    return thread;
  }

  /** Has the timer thread pass now rather than at its next planned pass. */
  void wakeUp() {
    LockSupport.unpark(thread);
  }

  private void run() {
    // A pass that fails (an OutOfMemoryError, say) must not end the thread: every pending wait
    // would then never time out, and a run with such a wait would never return. The slot whose
    // wait failed to expire is still at the heap's top, so the next pass, a retry pause later,
    // fires it. The pause is published as the next pass, so that an arm due before it wakes the
    // timer (an arm that read the previous plan waits for the pause's end at most).
    while (!stopped) {
      try {
        passUntilStopped();
      } catch (RuntimeException | Error e) {
        // Stamped before the look at stopped: the timer is its run's (one per scheduler), and a
        // report that comes late, past the run's end, must reach no run begun after it.
        long metAt = HeapExhaustion.stamp();
        boolean heap = stopped ? HeapExhaustion.isHeapExhausted(e) : HeapExhaustion.report(e, TIMER, metAt);
        if (!heap) {
          try {
            LOG.error("the wait timer's pass failed; passing again in 10 ms", e);
          } catch (OutOfMemoryError noRoom) {
            // The heap ran out after all; the report has told the runs.
            HeapExhaustion.report(noRoom, TIMER);
          }
        }
        long pause = Math.min(housekeepingNanos, RETRY_NANOS);
        nextPass = clock.nanoTime() + pause;
        LockSupport.parkNanos(this, pause);
      }
    }
  }

  private void passUntilStopped() {
    while (!stopped) {
      long now = clock.nanoTime();
      takeArrivals();
      expireDue(now);
      passes++;
      if (heap.size == 0) {
        idle = true;
        // A slot that arrived after the pass: its thread may have seen idle still false.
        if (arrivals.isEmpty()) {
          LockSupport.park(this);
        }
        idle = false;
        continue;
      }
      // Read again: the plan counts from the pass's end, not its start.
      now = clock.nanoTime();
      long wait = Math.min(housekeepingNanos, heap.top().key - now);
      if (wait > 0L) {
        nextPass = now + wait;
        // A slot that arrived after the pass: its thread may have read the previous next pass.
        if (arrivals.isEmpty()) {
          LockSupport.parkNanos(this, wait);
        }
      }
    }
  }

  /** Files the slots handed over since the last pass, and drops the retired ones. */
  private void takeArrivals() {
    for (Slot slot; (slot = arrivals.poll()) != null; ) {
      if (slot.retired) {
        if (slot.heapIndex >= 0) {
          heap.remove(slot);
        }
      } else {
        slot.filed = 1;
        file(slot);
        filings++;
      }
    }
  }

  /**
   * Orders {@code slot} by its current deadline, in the heap or into it. Dekker's pattern with
   * {@link #arm}: the key is published before the wait is read again, so either this sees a
   * wait armed meanwhile, or that wait's arming sees this key and hands the slot over again.
   */
  private void file(Slot slot) {
    for (;;) {
      Timed wait = slot.current;
      slot.key = slot.deadline;
      if (slot.current == wait) {
        break;
      }
    }
    if (slot.heapIndex >= 0) {
      heap.update(slot);
    } else {
      heap.add(slot);
    }
  }

  /**
   * Deals with every slot whose recorded deadline has come: fires its wait if still pending and
   * due, moves it to a later deadline armed since, or gives it back if no wait is pending.
   */
  private void expireDue(long now) {
    while (heap.size > 0) {
      Slot slot = heap.top();
      if (slot.key - now > 0L) {
        return;
      }
      Timed wait = slot.current;
      long deadline = slot.deadline;
      // Read after the deadline: a wait still pending now is the one that deadline belongs to
      // (its session arms no other until it ends).
      if (wait != null && wait.pending()) {
        if (deadline - now > 0L) {
          file(slot);
          continue;
        }
        wait.expire();
      }
      heap.remove(slot);
      slot.filed = 0;
      // Dekker's other half: the session may have armed again without seeing the flag clear.
      Timed again = slot.current;
      if (again != null && again.pending() && !slot.retired && FILED.compareAndSet(slot, 0, 1)) {
        file(slot);
      }
    }
  }

  /** A binary min-heap of slots by {@link Slot#key}, each slot knowing its index; timer thread only. */
  private static final class SlotHeap {
    private Slot[] slots = new Slot[64];
    int size;

    Slot top() {
      return slots[0];
    }

    void add(Slot slot) {
      if (size == slots.length) {
        slots = Arrays.copyOf(slots, size * 2);
      }
      siftUp(size++, slot);
    }

    /** Puts {@code slot}, whose key has changed, back in order. */
    void update(Slot slot) {
      int i = slot.heapIndex;
      siftUp(i, slot);
      if (slots[i] == slot) {
        siftDown(i, slot);
      }
    }

    void remove(Slot slot) {
      removeAt(slot.heapIndex);
    }

    private void removeAt(int i) {
      Slot gone = slots[i];
      gone.heapIndex = -1;
      Slot last = slots[--size];
      slots[size] = null;
      if (i < size) {
        siftDown(i, last);
        if (slots[i] == last) {
          siftUp(i, last);
        }
      }
      if (slots.length > 64 && size < slots.length / 4) {
        slots = Arrays.copyOf(slots, slots.length / 2);
      }
    }

    private void siftUp(int i, Slot slot) {
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        Slot p = slots[parent];
        if (slot.key - p.key >= 0L) {
          break;
        }
        place(i, p);
        i = parent;
      }
      place(i, slot);
    }

    private void siftDown(int i, Slot slot) {
      int half = size >>> 1;
      while (i < half) {
        int child = 2 * i + 1;
        Slot c = slots[child];
        int right = child + 1;
        if (right < size && slots[right].key - c.key < 0L) {
          child = right;
          c = slots[child];
        }
        if (slot.key - c.key <= 0L) {
          break;
        }
        place(i, c);
        i = child;
      }
      place(i, slot);
    }

    private void place(int i, Slot slot) {
      slots[i] = slot;
      slot.heapIndex = i;
    }
  }
}
