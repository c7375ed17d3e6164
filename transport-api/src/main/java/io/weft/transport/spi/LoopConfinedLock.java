package io.weft.transport.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The lock of a connection's state ({@link InboundState}, {@link ConnectionState}), confined to
 * the loop thread that delivers the connection's input: on that thread, its <em>owner</em>, a
 * section takes no lock and makes no compare-and-set; every other thread takes a
 * {@link ReentrantLock} and then waits for the owner to leave the section it may be in.
 *
 * <p>A continuation resumed on its channel's event loop runs on the owner: the I/O side's
 * delivery and the session's polls and wake-up registrations then
 * cost one ordered store each (a StoreLoad fence on x86), where a {@code ReentrantLock} costs a
 * compare-and-set and a volatile store. A thread that is not the owner (a session on a worker, a
 * close from another thread, a timer) takes the slow path, and mutual exclusion holds between any
 * two threads as with a plain lock. The slow path costs such a thread one more StoreLoad fence per
 * section than a plain lock, so a connection whose reader never runs on the loop (a blocking
 * mode) is better left unbound: with no owner every section takes the plain lock alone.
 *
 * <p><b>The confinement is checked, not assumed.</b> The owner is bound once, by the thread
 * itself ({@link #bindOwner()}), outside any section, and never changes; each {@link #lock()}
 * compares the current thread with it. Exclusion holds on any thread; only the bound one is fast,
 * so a connection whose input moves to another thread (a re-registered channel) stays correct on
 * the slow path. The owner's fast path and a foreign section exclude each other by Dekker's
 * pattern: the owner publishes {@code ownerInside} and then reads {@code foreignInside}; a
 * foreign thread, holding the lock, publishes {@code foreignInside} and then reads
 * {@code ownerInside} (both volatile, so each store is ordered before the following load). At
 * least one of the two sees the other: an owner that sees a foreign section backs off and takes
 * the lock; a foreign thread that sees the owner inside waits for it to leave. The owner never
 * waits inside a section (nothing under this lock waits or calls into a library), so that wait
 * is one short section long.
 *
 * <p>Reentrant on every thread. No conditions.
 */
public final class LoopConfinedLock {
  private static final VarHandle OWNER_INSIDE;
  private static final VarHandle FOREIGN_INSIDE;
  /** Turns of a foreign thread's wait for the owner spent spinning, then yielding, before it parks. */
  private static final int SPINS = 64;
  private static final int YIELDS = 64;
  private static final long PARK_NANOS = 20_000L;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      OWNER_INSIDE = lookup.findVarHandle(LoopConfinedLock.class, "ownerInside", boolean.class);
      FOREIGN_INSIDE = lookup.findVarHandle(LoopConfinedLock.class, "foreignInside", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
    linkAccessModes();
  }

  /**
   * Runs each path of a section once as the class loads. A VarHandle access (a
   * signature-polymorphic call) is linked at its first execution, which allocates; a section that
   * linked one in a full heap could throw between its flag's store and its reset and leave the
   * flag set, so that foreign threads wait for an owner that is not inside. After this, no section
   * links anything.
   */
  private static void linkAccessModes() {
    LoopConfinedLock owned = new LoopConfinedLock();
    owned.bindOwner();
    // The owner's confined section: setVolatile, getVolatile, setRelease.
    owned.lock();
    owned.unlock();
    // The owner's back-off, as when it finds a foreign thread inside.
    owned.foreignInside = true;
    owned.lock();
    owned.unlock();
    owned.foreignInside = false;
    // A foreign section against a bound owner (any other thread will do; it is never started).
    LoopConfinedLock foreign = new LoopConfinedLock();
    foreign.owner = new Thread("LoopConfinedLock linking");
    foreign.lock();
    foreign.unlock();
  }

  /** Held by every thread but the owner; by the owner only after it saw a foreign section. */
  private final ReentrantLock lock = new ReentrantLock();
  /** The loop thread bound by {@link #bindOwner()}, or null; set once, under {@link #lock}. */
  private volatile Thread owner;
  /** True while the owner is in a section without the lock; written by the owner only. */
  private volatile boolean ownerInside;
  /** True while a foreign thread holds {@link #lock} for a section; written by the holder only. */
  private volatile boolean foreignInside;
  /**
   * The foreign thread that last set {@link #foreignInside}, for the owner to unpark. Plain: it is
   * written before the volatile store of {@code foreignInside} and read after a volatile load
   * that saw it true, which orders the two. A stale value costs only a spurious unpark.
   */
  private Thread waiter;
  /** The owner's section depth; touched by the owner only. */
  private int ownerDepth;
  /** True while the owner's outermost section holds {@link #lock}; touched by the owner only. */
  private boolean ownerLocked;
  /** Outermost sections the owner ran without the lock; touched by the owner only. */
  private long confinedSections;

  /** A lock with no owner yet: every thread takes the slow path until one is bound. */
  public LoopConfinedLock() {}

  /**
   * Makes the current thread this lock's owner, unless another thread is already: from then on its
   * sections take no lock while no other thread is in one. Call it on the loop thread that delivers
   * the connection's input, outside any section. The owner never changes: a thread that finds
   * another bound stays on the slow path, which is correct, only slower.
   *
   * @return true if the current thread is the owner (now or already); false if another thread is,
   *     or the caller is inside a section of this lock (then nothing is bound)
   */
  public boolean bindOwner() {
    Thread me = Thread.currentThread();
    if (owner == me) {
      return true;
    }
    if (lock.isHeldByCurrentThread()) {
      return false;
    }
    lock.lock();
    try {
      if (owner != null) {
        return false;
      }
      owner = me;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether an owner is bound.
   *
   * @return true once {@link #bindOwner()} has been called
   */
  public boolean hasOwner() {
    return owner != null;
  }

  /**
   * Whether the current thread is this lock's owner.
   *
   * @return true on the bound owner thread
   */
  public boolean isOwner() {
    return owner == Thread.currentThread();
  }

  /** Enters a section: see the class javadoc. Pair it with {@link #unlock()} in a finally. */
  public void lock() {
    if (Thread.currentThread() == owner) {
      if (ownerDepth > 0) {
        ownerDepth++;
        return;
      }
      // The depth is set last on each path: an error (a stack overflow in the VarHandle calls)
      // thrown before it leaves no section half entered.
      try {
        OWNER_INSIDE.setVolatile(this, true);
        if (!(boolean) FOREIGN_INSIDE.getVolatile(this)) {
          confinedSections++;
          ownerDepth = 1;
          return;
        }
        OWNER_INSIDE.setRelease(this, false);
        // The foreign thread may have read the flag just set and parked again: wake it, so that
        // the lock is not held up for its park.
        LockSupport.unpark(waiter);
      } catch (Throwable e) {
        OWNER_INSIDE.setRelease(this, false);
        throw e;
      }
      lock.lock();
      ownerLocked = true;
      ownerDepth = 1;
      return;
    }
    lock.lock();
    // The owner is bound under the lock, so one bound later than this read finds the lock held and
    // waits; with none bound, no section runs without the lock.
    if (owner != null && lock.getHoldCount() == 1) {
      try {
        waiter = Thread.currentThread();
        FOREIGN_INSIDE.setVolatile(this, true);
        awaitOwnerOutside();
      } catch (Throwable e) {
        FOREIGN_INSIDE.setRelease(this, false);
        lock.unlock();
        throw e;
      }
    }
  }

  /** Leaves a section entered with {@link #lock()}. */
  public void unlock() {
    if (Thread.currentThread() == owner) {
      if (ownerDepth <= 0) {
        throw new IllegalMonitorStateException("unlock outside a section");
      }
      if (--ownerDepth > 0) {
        return;
      }
      if (ownerLocked) {
        ownerLocked = false;
        lock.unlock();
      } else {
        // A release store: what the section wrote is seen by a foreign thread that reads false.
        OWNER_INSIDE.setRelease(this, false);
        if (foreignInside) {
          // A foreign thread waits for this section to end: wake it rather than let it sleep out
          // its park. (Missing it here costs only that park: it re-checks every PARK_NANOS.)
          LockSupport.unpark(waiter);
        }
      }
      return;
    }
    if (foreignInside && lock.getHoldCount() == 1) {
      FOREIGN_INSIDE.setRelease(this, false);
    }
    lock.unlock();
  }

  /** A foreign thread holding the lock: waits until the owner has left its section, if in one. */
  private void awaitOwnerOutside() {
    for (int i = 0; (boolean) OWNER_INSIDE.getVolatile(this); i++) {
      if (i < SPINS) {
        Thread.onSpinWait();
      } else if (i < SPINS + YIELDS) {
        Thread.yield();
      } else {
        LockSupport.parkNanos(this, PARK_NANOS);
        if (Thread.currentThread().isInterrupted()) {
          // An interrupted thread's park returns at once: give the owner the core instead.
          Thread.yield();
        }
      }
    }
  }

  /**
   * Whether the current thread is in a section of this lock.
   *
   * @return true between a {@link #lock()} and its {@link #unlock()} on this thread
   */
  public boolean isHeldByCurrentThread() {
    return Thread.currentThread() == owner ? ownerDepth > 0 : lock.isHeldByCurrentThread();
  }

  /**
   * Whether the current thread, the owner, is in a section it entered without taking the lock. For
   * tests and diagnostics.
   *
   * @return true on the owner inside a confined section; false elsewhere
   */
  public boolean isConfinedHere() {
    return Thread.currentThread() == owner && ownerDepth > 0 && !ownerLocked;
  }

  /**
   * How many outermost sections the owner ran without the lock. Read it on the owner thread (or
   * after it has stopped). For tests and diagnostics.
   *
   * @return the count since the lock was made
   */
  public long confinedSections() {
    return confinedSections;
  }

  @Override
  public String toString() {
    Thread o = owner;
    return "LoopConfinedLock{owner=" + (o == null ? "none" : o.getName()) + ", " + lock + "}";
  }
}
