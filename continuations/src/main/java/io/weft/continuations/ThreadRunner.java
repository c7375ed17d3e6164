package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.VirtualThreads;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code THREADS} and {@code VIRTUAL_THREADS}: a thread per session, platform or virtual, at most
 * {@code maxInFlight} at once. Cancelling cancels every session's context (closing its transport,
 * which ends its wait) and interrupts the session threads still running.
 */
final class ThreadRunner extends ModeRunner {
  private final boolean virtual;

  ThreadRunner(RunnerSettings settings, boolean virtual) {
    super(settings);
    this.virtual = virtual;
  }

  @Override
  <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object[] args, RunControl control)
      throws InterruptedException {
    if (virtual) {
      VirtualThreads.check();
    }
    List<SessionContext> contexts = contexts(TaskFactory.newTask(taskClass, args), sessions);
    long start = System.nanoTime();
    int maxInFlight = settings.maxInFlight();
    int all = maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight;
    Semaphore permits = new Semaphore(all);
    // The session threads still running, for cancel's interrupt: a finished one leaves, so that
    // a long run keeps no Thread per finished session. Guarded by itself.
    Set<Thread> threads = new HashSet<>();
    // The thread that ended last. Each ending thread joins the one before it, so joining the
    // last one waits for them all without keeping them.
    AtomicReference<Thread> lastEnded = new AtomicReference<>();
    control.onCancel(() -> {
      // One session's close failing (the heap ran out, say) must not spare the others.
      for (SessionContext c : contexts) {
        try {
          c.cancel();
        } catch (OutOfMemoryError e) {
          // An aborted run cancels again while it waits (see RunControl).
        }
      }
      synchronized (threads) {
        for (Thread t : threads) {
          t.interrupt();
        }
      }
    });
    long grace = settings.closeWaitMillis();
    try {
      for (SessionContext context : contexts) {
        if (control.isCancelled()
            || !control.awaitSessions(nanos -> permits.tryAcquire(nanos, TimeUnit.NANOSECONDS), grace)) {
          context.cancel();
          continue;
        }
        if (control.isCancelled()) {
          permits.release();
          context.cancel();
          continue;
        }
        // Set under the lock by the thread ending; its registration below looks at it.
        boolean[] ended = new boolean[1];
        Runnable body = () -> {
          try {
            new SessionFrame(context).run();
          } finally {
            // The permit first, with nothing before it that allocates or can fail: this runs when
            // the session failed, perhaps of the heap running out, and an error before the
            // release would keep the run waiting for this session.
            Thread before = lastEnded.getAndSet(Thread.currentThread());
            permits.release();
            synchronized (threads) {
              ended[0] = true;
              threads.remove(Thread.currentThread());
            }
            joinQuietly(before);
          }
        };
        Thread thread;
        try {
          String name = "weft-session-" + context.index();
          if (virtual) {
            thread = VirtualThreads.start(name, body);
          } else {
            thread = new Thread(body, name);
            thread.setDaemon(true);
            thread.start();
          }
        } catch (OutOfMemoryError e) {
          // No session thread: its permit comes back here, or the run would wait for it for ever.
          permits.release();
          context.cancel();
          if (!HeapExhaustion.report(e, "the run's thread starting a session")) {
            throw e;
          }
          continue;
        }
        synchronized (threads) {
          if (!ended[0]) {
            threads.add(thread);
          }
        }
      }
    } finally {
      // Every session has ended once all permits are back; then the last thread to end has
      // joined the one before it, and so on. An aborted run waits only so long (see RunControl).
      if (control.awaitSessions(nanos -> permits.tryAcquire(all, nanos, TimeUnit.NANOSECONDS), grace)) {
        permits.release(all);
        Thread last = lastEnded.get();
        if (last != null) {
          control.awaitSessions(nanos -> {
            TimeUnit.NANOSECONDS.timedJoin(last, nanos);
            return !last.isAlive();
          }, grace);
        }
      } else {
        control.unended(all - permits.availablePermits());
      }
    }
    return result(contexts, start, control);
  }

  /**
   * Waits for {@code thread} to end, through interrupts (a cancel interrupts every session thread).
   * Gives up if the heap has no room for the wait: the thread then ends without waiting, and the
   * run's own wait, bounded once the heap ran out, covers the rest.
   */
  private static void joinQuietly(Thread thread) {
    if (thread == null) {
      return;
    }
    boolean interrupted = false;
    for (;;) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (OutOfMemoryError e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
