package io.weft.transport.spi;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A connection state confined to its loop thread: on that thread its sections take no lock; they
 * still exclude every other thread's, both ways, and a reader on another thread loses no wake-up.
 * The loop is a plain thread running tasks; nothing here depends on timing: a wait for a thread to
 * block is bounded by the class's timeout only.
 */
@Timeout(60)
class LoopConfinedLockTest {
  private final Loop loop = new Loop();

  @AfterEach
  void stopLoop() throws InterruptedException {
    loop.stop();
  }

  @Test
  void theLoopThreadsDeliveriesAndPollsRunWithoutTheLock() throws Exception {
    TestState state = new TestState();
    List<Boolean> confinedInAppend = new ArrayList<>();
    state.insideAppend = () -> confinedInAppend.add(state.lock().isConfinedHere());
    assertFalse(state.isConfined());
    String line = loop.call(() -> {
      state.confine();
      runWakeup(state.deliver("a\r\n"));
      return state.pollLine(100, true, US_ASCII);
    });
    assertEquals("a", line);
    assertTrue(state.isConfined());
    assertEquals(2L, loop.call(() -> state.lock().confinedSections()), "the delivery and the poll, each confined");
    // The same state from another thread: the lock, never the confined path.
    CompletableFuture.runAsync(() -> runWakeup(state.deliver("b\r\n"))).get();
    assertEquals(List.of(true, false), confinedInAppend);
    assertEquals("b", loop.call(() -> state.pollLine(100, true, US_ASCII)));
    assertEquals(3L, loop.call(() -> state.lock().confinedSections()), "after a foreign section, the loop's are confined again");
  }

  @Test
  void theLoopWaitsForAForeignThreadsSectionToEnd() throws Exception {
    TestState state = new TestState();
    loop.call(() -> {
      state.confine();
      return null;
    });
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    state.insideAppend = () -> {
      inside.countDown();
      awaitQuietly(release);
    };
    CompletableFuture<Void> foreign = CompletableFuture.runAsync(() -> runWakeup(state.deliver("a\r\n")));
    inside.await();
    state.insideAppend = null;
    CompletableFuture<String> loopPoll = loop.submit(() -> state.pollLine(100, true, US_ASCII));
    // The loop blocks on the lock the foreign section holds (a poll that ran alongside it would
    // find the buffer still empty and be done with null).
    awaitParked(loop.thread, loopPoll, blocker -> blocker.getClass().getName().startsWith("java.util.concurrent.locks.ReentrantLock"));
    assertFalse(loopPoll.isDone(), "the loop's poll ran inside the foreign thread's section");
    release.countDown();
    foreign.get();
    assertEquals("a", loopPoll.get());
  }

  @Test
  void aForeignThreadWaitsForTheLoopsConfinedSectionToEnd() throws Exception {
    TestState state = new TestState();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    state.insideAppend = () -> {
      inside.countDown();
      awaitQuietly(release);
    };
    CompletableFuture<Runnable> delivered = loop.submit(() -> {
      state.confine();
      return state.deliver("a\r\n");
    });
    inside.await();
    state.insideAppend = null;
    Thread[] reader = new Thread[1];
    CountDownLatch started = new CountDownLatch(1);
    CompletableFuture<String> foreignPoll = new CompletableFuture<>();
    reader[0] = new Thread(() -> {
      started.countDown();
      try {
        foreignPoll.complete(state.pollLine(100, true, US_ASCII));
      } catch (IOException | RuntimeException e) {
        foreignPoll.completeExceptionally(e);
      }
    }, "foreign reader");
    reader[0].start();
    started.await();
    awaitParked(reader[0], foreignPoll, blocker -> blocker == state.lock());
    assertFalse(foreignPoll.isDone(), "the foreign poll ran inside the loop's confined section");
    release.countDown();
    assertNull(delivered.get(), "no reader had registered a wake-up");
    assertEquals("a", foreignPoll.get());
    reader[0].join();
  }

  @Test
  void aReaderOnAnotherThreadLosesNoWakeupAgainstTheLoopsDeliveries() throws Exception {
    int lines = 20_000;
    TestState state = new TestState();
    loop.call(() -> {
      state.confine();
      return null;
    });
    AtomicInteger taken = new AtomicInteger();
    Semaphore woken = new Semaphore(0);
    CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
      try {
        for (int i = 0; i < lines; i++) {
          String line;
          while ((line = state.pollLine(100, true, US_ASCII)) == null) {
            if (state.wakeWhenReadable(woken::release)) {
              woken.acquire();
            }
          }
          assertEquals(Integer.toString(i), line);
          taken.set(i + 1);
        }
      } catch (IOException | InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    CompletableFuture<Void> writer = loop.submit(() -> {
      for (int i = 0; i < lines; i++) {
        // One line at a time, so that each delivery races with the reader's poll and registration.
        while (taken.get() < i) {
          Thread.onSpinWait();
        }
        runWakeup(state.deliver(i + "\r\n"));
      }
      return null;
    });
    reader.get();
    writer.get();
    assertEquals(lines, taken.get());
  }

  /**
   * Naming the loop that delivers the input binds nothing: a reader that polls on another thread
   * (the blocking modes, {@code resumeOnWorkers}) keeps the plain lock. The first poll made on the
   * loop (a continuation resumed there) confines the state, and from then on the loop's sections
   * are confined.
   */
  @Test
  void aStateIsConfinedOnlyOnceAReaderPollsOnTheLoopThatDeliversItsInput() throws Exception {
    TestState state = new TestState();
    List<Boolean> confinedInAppend = new java.util.concurrent.CopyOnWriteArrayList<>();
    state.insideAppend = () -> confinedInAppend.add(state.lock().isConfinedHere());
    loop.call(() -> {
      state.declareLoop();
      runWakeup(state.deliver("a\r\n"));
      return null;
    });
    assertFalse(state.isConfined(), "naming the loop bound it");
    // A reader on another thread, as in THREADS: polls and wake-ups against the loop's deliveries.
    for (int i = 0; i < 3; i++) {
      assertEquals(i == 0 ? "a" : "x" + i, state.pollLine(100, true, US_ASCII));
      assertNull(state.pollLine(100, true, US_ASCII));
      Semaphore woken = new Semaphore(0);
      assertTrue(state.wakeWhenReadable(woken::release));
      int n = i + 1;
      loop.call(() -> {
        runWakeup(state.deliver("x" + n + "\r\n"));
        return null;
      });
      woken.acquire();
    }
    assertFalse(state.isConfined(), "a reader that never polls on the loop confined the state to it");
    assertEquals(List.of(false, false, false, false), confinedInAppend);
    // A reader on the loop itself, as a continuation resumed there: its first poll binds.
    assertEquals("x3", loop.call(() -> state.pollLine(100, true, US_ASCII)));
    assertTrue(state.isConfined());
    assertTrue(loop.call(state::isConfinedToCurrentThread));
    assertEquals(1L, loop.call(() -> state.lock().confinedSections()), "the binding poll, confined");
    loop.call(() -> {
      runWakeup(state.deliver("y\r\n"));
      return null;
    });
    assertEquals(List.of(false, false, false, false, true), confinedInAppend);
    assertEquals("y", loop.call(() -> state.pollLine(100, true, US_ASCII)));
    assertEquals(3L, loop.call(() -> state.lock().confinedSections()));
    // A poll on a thread that was never named binds nothing.
    TestState other = new TestState();
    runWakeup(other.deliver("z\r\n"));
    assertEquals("z", loop.call(() -> other.pollLine(100, true, US_ASCII)));
    assertFalse(other.isConfined(), "a poll on a thread that does not deliver the input bound it");
  }

  /**
   * A foreign section that waits for the lock while the loop binds itself as the owner learns of
   * the binding once it holds the lock: it flags itself, so the loop's next section waits for it.
   * A foreign thread that read the owner before it took the lock (none yet) would run its section
   * unflagged beside the loop's confined one.
   */
  @Test
  void aForeignSectionQueuedBehindTheBindingSeesTheOwner() throws Exception {
    TestState state = new TestState();
    CountDownLatch firstInside = new CountDownLatch(1);
    CountDownLatch releaseFirst = new CountDownLatch(1);
    CountDownLatch secondInside = new CountDownLatch(1);
    CountDownLatch releaseSecond = new CountDownLatch(1);
    Thread[] first = new Thread[1];
    state.insideAppend = () -> {
      if (Thread.currentThread() == first[0]) {
        firstInside.countDown();
        awaitQuietly(releaseFirst);
      } else {
        secondInside.countDown();
        awaitQuietly(releaseSecond);
      }
    };
    // A foreign section holds the lock while no owner is bound.
    CompletableFuture<Void> firstDone = new CompletableFuture<>();
    first[0] = new Thread(() -> {
      runWakeup(state.deliver("a\r\n"));
      firstDone.complete(null);
    }, "first foreign");
    first[0].start();
    firstInside.await();
    // The loop binds itself: it queues on the lock.
    CompletableFuture<Boolean> bound = loop.submit(state.lock()::bindOwner);
    awaitParked(loop.thread, bound, LoopConfinedLockTest::isReentrantLock);
    assertFalse(bound.isDone());
    // A second foreign section queues behind the binding.
    CompletableFuture<Void> secondDone = new CompletableFuture<>();
    Thread second = new Thread(() -> {
      runWakeup(state.deliver("b\r\n"));
      secondDone.complete(null);
    }, "second foreign");
    second.start();
    awaitParked(second, secondDone, LoopConfinedLockTest::isReentrantLock);
    releaseFirst.countDown();
    assertTrue(bound.get(), "the loop was bound");
    secondInside.await();
    // The second foreign section is inside; the loop's poll must wait for it.
    CompletableFuture<String> loopPoll = loop.submit(() -> state.pollLine(100, true, US_ASCII));
    awaitParked(loop.thread, loopPoll, LoopConfinedLockTest::isReentrantLock);
    assertFalse(loopPoll.isDone(), "the loop's poll ran inside a foreign section queued behind the binding");
    releaseSecond.countDown();
    firstDone.get();
    secondDone.get();
    assertEquals("a", loopPoll.get());
    assertEquals("b", loop.call(() -> state.pollLine(100, true, US_ASCII)));
    first[0].join();
    second.join();
  }

  /**
   * A foreign thread with its interrupt status set still waits for the loop's section to end
   * (its park returns at once, so it yields instead), then runs its own section, and keeps its
   * interrupt status: the lock neither throws for it nor clears it.
   */
  @Test
  void anInterruptedForeignThreadWaitsForTheLoopAndKeepsItsInterrupt() throws Exception {
    TestState state = new TestState();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    state.insideAppend = () -> {
      inside.countDown();
      awaitQuietly(release);
    };
    CompletableFuture<Runnable> delivered = loop.submit(() -> {
      state.confine();
      return state.deliver("a\r\n");
    });
    inside.await();
    state.insideAppend = null;
    CompletableFuture<String> foreignPoll = new CompletableFuture<>();
    CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      Thread.currentThread().interrupt();
      try {
        foreignPoll.complete(state.pollLine(100, true, US_ASCII));
      } catch (IOException | RuntimeException e) {
        foreignPoll.completeExceptionally(e);
      }
      stillInterrupted.complete(Thread.currentThread().isInterrupted());
    }, "interrupted foreign reader");
    reader.start();
    // Wait until the reader waits for the loop's section (it does not stay parked: its park
    // returns at once, interrupted).
    while (!foreignPoll.isDone() && !waitsForOwner(reader)) {
      Thread.onSpinWait();
    }
    assertFalse(foreignPoll.isDone(), "the interrupted foreign poll ran inside the loop's confined section");
    release.countDown();
    assertNull(delivered.get());
    assertEquals("a", foreignPoll.get());
    assertTrue(stillInterrupted.get(), "the wait cleared the reader's interrupt status");
    reader.join();
  }

  @Test
  void onlyTheBoundThreadIsTheOwnerAndOnlyOnceBound() throws Exception {
    LoopConfinedLock lock = new LoopConfinedLock();
    assertTrue(loop.call(lock::bindOwner));
    assertTrue(loop.call(lock::bindOwner), "a second call by the owner");
    assertTrue(loop.call(lock::isOwner));
    assertFalse(lock.isOwner());
    assertFalse(lock.bindOwner(), "another thread binds nothing");
    assertFalse(lock.isOwner());
    assertTrue(loop.call(lock::isOwner));
    LoopConfinedLock fresh = new LoopConfinedLock();
    fresh.lock();
    try {
      assertFalse(fresh.bindOwner(), "no binding inside a section");
    } finally {
      fresh.unlock();
    }
    assertFalse(fresh.hasOwner());
    assertThrows(IllegalMonitorStateException.class, () -> loop.call(() -> {
      lock.unlock();
      return null;
    }));
  }

  @Test
  void sectionsNestOnTheOwnerAndElsewhere() throws Exception {
    LoopConfinedLock lock = new LoopConfinedLock();
    loop.call(() -> {
      lock.bindOwner();
      lock.lock();
      lock.lock();
      lock.unlock();
      assertTrue(lock.isConfinedHere());
      assertTrue(lock.isHeldByCurrentThread());
      lock.unlock();
      assertFalse(lock.isHeldByCurrentThread());
      return null;
    });
    lock.lock();
    lock.lock();
    lock.unlock();
    assertTrue(lock.isHeldByCurrentThread());
    assertFalse(lock.isConfinedHere());
    lock.unlock();
    assertFalse(lock.isHeldByCurrentThread());
    assertEquals(1L, loop.call(lock::confinedSections));
  }

  // ---- Helpers.

  private static void runWakeup(Runnable wakeup) {
    if (wakeup != null) {
      wakeup.run();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static boolean isReentrantLock(Object blocker) {
    return blocker.getClass().getName().startsWith("java.util.concurrent.locks.ReentrantLock");
  }

  /** Whether {@code thread} is in the lock's wait for the owner to leave its section. */
  private static boolean waitsForOwner(Thread thread) {
    for (StackTraceElement e : thread.getStackTrace()) {
      if (e.getClassName().equals(LoopConfinedLock.class.getName()) && e.getMethodName().equals("awaitOwnerOutside")) {
        return true;
      }
    }
    return false;
  }

  /** Waits until {@code thread} is parked on a blocker {@code which} accepts, or {@code result} is done. */
  private static void awaitParked(Thread thread, CompletableFuture<?> result, Predicate<Object> which) {
    while (!result.isDone()) {
      Thread.State s = thread.getState();
      Object blocker = LockSupport.getBlocker(thread);
      if ((s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) && blocker != null && which.test(blocker)) {
        return;
      }
      Thread.onSpinWait();
    }
  }

  /** A state whose input is byte arrays; {@code insideAppend} runs in the delivery's section. */
  static final class TestState extends InboundState<byte[]> {
    volatile Runnable insideAppend;

    TestState() {
      super(1 << 20, false);
    }

    void confine() {
      confineToCurrentThread();
    }

    void declareLoop() {
      inputDeliveredOnCurrentThread();
    }

    Runnable deliver(String text) {
      return onInput(text.getBytes(US_ASCII));
    }

    LoopConfinedLock lock() {
      return lock;
    }

    @Override
    protected boolean suspendReading(boolean suspend) {
      return false;
    }

    @Override
    protected void disconnect() {}

    @Override
    protected IOException append(byte[] message) {
      Runnable r = insideAppend;
      if (r != null) {
        r.run();
      }
      inbound.append(message, 0, message.length);
      return null;
    }
  }

  /** One thread that runs the test's tasks in turn: the connection's loop. */
  static final class Loop {
    private final java.util.concurrent.LinkedBlockingQueue<Runnable> tasks = new java.util.concurrent.LinkedBlockingQueue<>();
    final Thread thread = new Thread(this::run, "test loop");
    private volatile boolean stopped;

    Loop() {
      thread.setDaemon(true);
      thread.start();
    }

    interface Task<T> {
      T call() throws Exception;
    }

    <T> CompletableFuture<T> submit(Task<T> task) {
      CompletableFuture<T> result = new CompletableFuture<>();
      tasks.add(() -> {
        try {
          result.complete(task.call());
        } catch (Throwable e) {
          result.completeExceptionally(e);
        }
      });
      return result;
    }

    <T> T call(Task<T> task) throws Exception {
      try {
        return submit(task).get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof Exception) {
          throw (Exception) cause;
        }
        if (cause instanceof Error) {
          throw (Error) cause;
        }
        throw e;
      }
    }

    private void run() {
      while (!stopped) {
        try {
          tasks.take().run();
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.interrupt();
      thread.join();
    }
  }
}
