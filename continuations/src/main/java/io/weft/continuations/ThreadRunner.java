package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.VirtualThreads;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
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
      for (SessionContext c : contexts) {
        c.cancel();
      }
      synchronized (threads) {
        for (Thread t : threads) {
          t.interrupt();
        }
      }
    });
    try {
      for (SessionContext context : contexts) {
        permits.acquire();
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
            synchronized (threads) {
              ended[0] = true;
              threads.remove(Thread.currentThread());
            }
            joinUninterruptibly(lastEnded.getAndSet(Thread.currentThread()));
            permits.release();
          }
        };
        String name = "weft-session-" + context.index();
        Thread thread;
        if (virtual) {
          thread = VirtualThreads.start(name, body);
        } else {
          thread = new Thread(body, name);
          thread.setDaemon(true);
          thread.start();
        }
        synchronized (threads) {
          if (!ended[0]) {
            threads.add(thread);
          }
        }
      }
    } finally {
      // Every session has ended once all permits are back; then the last thread to end has
      // joined the one before it, and so on.
      permits.acquire(all);
      permits.release(all);
      Thread last = lastEnded.get();
      if (last != null) {
        last.join();
      }
    }
    return result(contexts, start);
  }

  private static void joinUninterruptibly(Thread thread) {
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
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
