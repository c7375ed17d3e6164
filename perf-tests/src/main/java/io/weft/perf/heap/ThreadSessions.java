package io.weft.perf.heap;

import io.weft.transport.spi.VirtualThreads;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Sessions that are threads parked in {@link LockSupport#park(Object)}: a platform thread or a
 * virtual thread per session.
 */
final class ThreadSessions implements ParkedSessions {
  private final String name;
  private final Function<Runnable, Thread> starter;
  private final String unavailable;

  private ThreadSessions(String name, Function<Runnable, Thread> starter, String unavailable) {
    this.name = name;
    this.starter = starter;
    this.unavailable = unavailable;
  }

  static ThreadSessions platform(long stackBytes) {
    return new ThreadSessions("THREADS", task -> {
      Thread thread = new Thread(null, task, "parked-session", stackBytes);
      thread.setDaemon(true);
      thread.start();
      return thread;
    }, null);
  }

  static ThreadSessions virtual() {
    return new ThreadSessions("VIRTUAL_THREADS", VirtualThreads::start,
        VirtualThreads.unavailableReason());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String unavailableReason() {
    return unavailable;
  }

  @Override
  public Parked park(int count, int depth) throws InterruptedException {
    if (count < 0) {
      throw new IllegalArgumentException("count < 0: " + count);
    }
    if (depth < 1) {
      throw new IllegalArgumentException("depth < 1: " + depth);
    }
    Gate gate = new Gate(count);
    Thread[] threads = new Thread[count];
    for (int i = 0; i < count; i++) {
      threads[i] = starter.apply(() -> waitAt(depth, gate));
    }
    if (!gate.arrived.await(5, TimeUnit.MINUTES)) {
      throw new IllegalStateException(gate.arrived.getCount() + " sessions never arrived");
    }
    // Arrived is not yet parked: wait until each thread is really waiting.
    for (Thread thread : threads) {
      while (thread.getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
    }
    int waiting = count - (int) gate.arrived.getCount();
    return new Parked() {
      @Override
      public int waiting() {
        return waiting;
      }

      @Override
      public void close() throws InterruptedException {
        gate.open = true;
        for (Thread thread : threads) {
          LockSupport.unpark(thread);
        }
        for (Thread thread : threads) {
          thread.join();
        }
      }
    };
  }

  /** Waits {@code frames} frames down; each frame holds a little state, as real frames do. */
  private static long waitAt(int frames, Gate gate) {
    if (frames > 1) {
      long below = waitAt(frames - 1, gate);
      return below + frames;
    }
    gate.arrived.countDown();
    while (!gate.open) {
      LockSupport.park(gate);
    }
    return 1;
  }

  private static final class Gate {
    final CountDownLatch arrived;
    volatile boolean open;

    Gate(int count) {
      this.arrived = new CountDownLatch(count);
    }
  }
}
