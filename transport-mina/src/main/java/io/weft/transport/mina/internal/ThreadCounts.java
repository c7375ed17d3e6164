package io.weft.transport.mina.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters bumped on every wait, kept by a connector's own I/O threads in plain slots of their
 * own and summed when read. Through one shared atomic, each increment from another core moves the
 * counter's cache line to that core (a successful but slow compare-and-set, which a
 * {@link LongAdder} never stripes, since it never fails); a plain slot per thread stays in that
 * thread's cache. Other threads (workers, a caller's own threads) count in a striped adder.
 *
 * <p>Lifecycle: one per connector; its thread factory {@link #adopt}s each thread before it
 * starts, and the thread {@link #retire}s itself as it ends, folding its counts into this object.
 * A sum read while threads count is a moment's snapshot, as a {@link LongAdder}'s is.
 */
public final class ThreadCounts {
  /** How many counters: slots 0 to SLOTS - 1. */
  public static final int SLOTS = 4;

  private final Set<MinaIoThread> threads = ConcurrentHashMap.newKeySet();
  /** Counts of threads that have ended; guarded by {@code this}. */
  private final long[] retired = new long[SLOTS];

  /** Counters at zero, with no thread adopted yet. */
  public ThreadCounts() {}

  /**
   * The counter in {@code slot}.
   *
   * @param slot 0 to {@link #SLOTS} - 1
   * @return the counter
   */
  public Counter counter(int slot) {
    if (slot < 0 || slot >= SLOTS) {
      throw new IllegalArgumentException("slot: " + slot);
    }
    return new Counter(this, slot);
  }

  /** Makes {@code thread}, not yet started, count in its own slots. */
  void adopt(MinaIoThread thread) {
    thread.counts = this;
    threads.add(thread);
  }

  /** Called by {@code thread} itself as it ends: its counts move here. */
  void retire(MinaIoThread thread) {
    synchronized (this) {
      for (int i = 0; i < SLOTS; i++) {
        retired[i] += thread.count[i];
      }
      threads.remove(thread);
    }
  }

  /**
   * One counter: {@link #increment()} from any thread, {@link #sum()} from any thread. A
   * {@link LongAdder} to whoever takes one (other threads count in it); {@code add}, {@code reset}
   * and {@code sumThenReset} see only what other threads counted.
   */
  public static final class Counter extends LongAdder {
    private static final long serialVersionUID = 1L;
    private final transient ThreadCounts owner;
    private final int slot;

    private Counter(ThreadCounts owner, int slot) {
      this.owner = owner;
      this.slot = slot;
    }

    /** Adds one. */
    @Override
    public void increment() {
      Thread t = Thread.currentThread();
      if (t instanceof MinaIoThread) {
        MinaIoThread io = (MinaIoThread) t;
        if (io.counts == owner) {
          io.count[slot]++;
          return;
        }
      }
      super.increment();
    }

    /**
     * The count so far.
     *
     * @return the sum over every thread
     */
    @Override
    public long sum() {
      synchronized (owner) {
        long sum = owner.retired[slot] + super.sum();
        for (MinaIoThread thread : owner.threads) {
          sum += thread.count[slot];
        }
        return sum;
      }
    }
  }
}
