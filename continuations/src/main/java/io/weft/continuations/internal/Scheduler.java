package io.weft.continuations.internal;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ready queue and its k worker threads, plus one timer thread for wait timeouts. One
 * scheduler runs one batch of fibers and is then shut down: {@link #shutdown} leaves no thread
 * behind.
 */
public final class Scheduler {
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);
  private static final Fiber STOP = new Fiber(-1, null, null, null, null, null, false);

  private final LinkedBlockingQueue<Fiber> ready = new LinkedBlockingQueue<>();
  private final ScheduledThreadPoolExecutor timer;
  private final Thread[] workers;
  private final Set<Fiber> live = ConcurrentHashMap.newKeySet();
  private final ArrayDeque<Fiber> waiting = new ArrayDeque<>();
  private final int maxInFlight;
  private CountDownLatch allDone = new CountDownLatch(0);
  private volatile boolean cancelled;

  public Scheduler(int workerCount, int maxInFlight, String name) {
    if (workerCount < 1) {
      throw new IllegalArgumentException("workers < 1: " + workerCount);
    }
    this.maxInFlight = maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight;
    timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name + "-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    workers = new Thread[workerCount];
    for (int i = 0; i < workerCount; i++) {
      workers[i] = new Thread(this::work, name + "-worker-" + i);
      workers[i].setDaemon(true);
      workers[i].start();
    }
  }

  private void work() {
    for (;;) {
      Fiber fiber;
      try {
        fiber = ready.take();
      } catch (InterruptedException e) {
        return;
      }
      if (fiber == STOP) {
        return;
      }
      try {
        fiber.runSlice();
      } catch (Throwable t) {
        log.error("fiber {} escaped its frame", fiber.index(), t);
      }
    }
  }

  /** Starts the fibers, at most maxInFlight at a time, and returns a latch for their end. */
  public CountDownLatch runAll(List<Fiber> fibers, java.util.function.Function<Fiber, Runnable> frames) {
    allDone = new CountDownLatch(fibers.size());
    synchronized (waiting) {
      for (Fiber fiber : fibers) {
        fiber.frame(frames.apply(fiber));
        waiting.add(fiber);
      }
      while (live.size() < maxInFlight && !waiting.isEmpty()) {
        admit(waiting.poll());
      }
    }
    return allDone;
  }

  private void admit(Fiber fiber) {
    live.add(fiber);
    if (cancelled) {
      fiber.cancel();
    }
    fiber.wake0();
  }

  void enqueue(Fiber fiber) {
    ready.add(fiber);
  }

  Future<?> schedule(Runnable task, long nanos) {
    return timer.schedule(task, nanos, TimeUnit.NANOSECONDS);
  }

  void done(Fiber fiber) {
    synchronized (waiting) {
      live.remove(fiber);
      Fiber next = waiting.poll();
      if (next != null) {
        admit(next);
      }
    }
    allDone.countDown();
  }

  /** Cancels every fiber, running, parked or not yet started. */
  public void cancel() {
    cancelled = true;
    synchronized (waiting) {
      for (Fiber fiber : live) {
        fiber.cancel();
      }
      for (Fiber fiber : waiting) {
        fiber.cancel();
      }
    }
  }

  /** Stops the workers and the timer and waits for them to end. */
  public void shutdown(long timeoutMillis) throws InterruptedException {
    for (int i = 0; i < workers.length; i++) {
      ready.add(STOP);
    }
    timer.shutdownNow();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Thread worker : workers) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      worker.join(Math.max(1L, left));
      if (worker.isAlive()) {
        worker.interrupt();
      }
    }
    timer.awaitTermination(Math.max(1L, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())),
        TimeUnit.MILLISECONDS);
  }

  /** True once every worker and the timer thread has ended. */
  public boolean isTerminated() {
    for (Thread worker : workers) {
      if (worker.isAlive()) {
        return false;
      }
    }
    return timer.isTerminated();
  }
}
