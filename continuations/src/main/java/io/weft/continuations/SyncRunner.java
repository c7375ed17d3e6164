package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.HeapExhaustion;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code SYNC}: the caller's thread runs one session after another; the next starts once the one
 * before has ended and its transport has reported its connection closed (an I/O library may close
 * the socket after {@code close()} returns), so that one connection is open at a time.
 */
final class SyncRunner extends ModeRunner {

  SyncRunner(RunnerSettings settings) {
    super(settings);
  }

  @Override
  <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object[] args, RunControl control)
      throws InterruptedException {
    List<SessionContext> contexts = contexts(TaskFactory.newTask(taskClass, args), sessions, control, null);
    long start = System.nanoTime();
    // Released by a close reported after its session's end, on the thread that reports it, which
    // then wakes this one: looked at, not waited for, so that an aborted run's wait needs no heap.
    Semaphore closes = new Semaphore(0);
    Runnable freed = () -> {
      closes.release();
      control.wake();
    };
    RunControl.Check closed = closes::tryAcquire;
    // The session now running, for cancel; the ones after it see the control's flag.
    AtomicReference<SessionContext> current = new AtomicReference<>();
    io.weft.continuations.internal.runtime.SessionCancels cancels = control.cancels();
    control.onCancel(() -> {
      SessionContext c = current.get();
      if (c != null && control.nextSession()) {
        // What its close throws goes no further (see SessionCancels).
        cancels.cancel(c);
      }
    });
    for (SessionContext context : contexts) {
      current.set(context);
      if (control.isCancelled()) {
        context.cancel();
        continue;
      }
      context.whenFreedByClose(freed);
      try {
        new SessionFrame(context).run();
      } catch (OutOfMemoryError e) {
        // Out of the session's own failure handling: if the heap ran out, the run is aborted
        // (the sessions after this one are cancelled); any other kind is the caller's to see.
        if (!HeapExhaustion.report(e, RunControl.A_SESSION)) {
          throw e;
        }
      }
      // An aborted run waits only so long (see RunControl); an interrupt, which the caller's
      // thread may carry from its sessions, does not end the wait early nor the run.
      if (!context.taskEnded() && !control.awaitSessionsUninterruptibly(closed, settings.closeWaitMillis())) {
        control.unended(1);
      }
    }
    return result(contexts, start, control, null);
  }
}
