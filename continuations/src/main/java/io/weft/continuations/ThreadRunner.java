package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.VirtualThreads;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code THREADS} and {@code VIRTUAL_THREADS}: a thread per session, platform or virtual, at most
 * {@code maxInFlight} at once. Cancelling cancels every session's context (closing its transport,
 * which ends its wait) and interrupts the session threads still running.
 */
final class ThreadRunner extends ModeRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ThreadRunner.class);
  /** The longest park between two looks at a virtual session thread still in its last steps. */
  private static final long GONE_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
  private final boolean virtual;

  static {
    // Links, as the class loads, the calls that a session thread's end makes with the heap
    // perhaps full: the stamp and the look at the error (its report is linked by SessionFrame's).
    HeapExhaustion.stamp();
    HeapExhaustion.isHeapExhausted(null);
    // And the end's bookkeeping, every call of it (a second end looks at the first): belt and
    // braces, since run() loads SessionThreads anyway, in a heap with room, before any session starts.
    SessionThreads linked = new SessionThreads(2);
    Thread self = Thread.currentThread();
    for (int slot = 0; slot < linked.sessions(); slot++) {
      linked.started(slot, self);
      linked.running(slot);
      linked.ended(slot, self);
    }
    linked.stillEnding();
  }

  ThreadRunner(RunnerSettings settings, boolean virtual) {
    super(settings);
    this.virtual = virtual;
  }

  @Override
  <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object[] args, RunControl control)
      throws InterruptedException {
    if (virtual) {
      VirtualThreads.check();
      // The JDK's lazily linked steps of a virtual thread's life taken now, with room, not first
      // on a carrier when the heap has run out (see warmUp).
      VirtualThreads.warmUp();
    }
    ConnectWindow.Windows window = windows(clock());
    List<SessionContext> contexts = contexts(TaskFactory.newTask(taskClass, args), sessions, control, window);
    long start = System.nanoTime();
    int maxInFlight = settings.maxInFlight();
    int all = maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight;
    Semaphore permits = new Semaphore(all);
    // The session threads still running, for cancel's interrupt, and those ended but still in
    // their last steps, for the run's end, which waits for them: no session thread waits for
    // another (see SessionThreads).
    SessionThreads threads = new SessionThreads(sessions);
    // Made now, while the heap has room: an aborted run's last steps must not need any. The
    // permits are looked at, not waited for: a session's end wakes this thread (see RunControl).
    // A session's permit comes back when its thread ends and its connection's close has been
    // reported, whichever is last: the close's report frees it through this.
    Runnable freed = () -> {
      permits.release();
      control.wake();
    };
    RunControl.Check onePermit = permits::tryAcquire;
    RunControl.Check allPermits = () -> permits.tryAcquire(all);
    // Waited for by the run's own thread only, never by a session thread (see awaitGone).
    RunControl.TimedWait allGone = nanos -> awaitGone(threads, virtual, nanos);
    // Made now, not at the abort: the pass asks it before each session (see RunControl.nextSession).
    java.util.function.BooleanSupplier goesOn = control::nextSession;
    io.weft.continuations.internal.runtime.SessionCancels cancels = control.cancels();
    control.onCancel(() -> {
      // This runs again and again while an aborted run waits, on a heap that may have no room;
      // one session's close failing must not spare the others (see SessionCancels).
      if (!cancels.cancel(contexts, goesOn)) {
        // The run is over, or this pass's thread stalled in a close and was replaced.
        return;
      }
      if (!control.nextSession()) {
        // Over: nothing of this pass reaches the sessions after the run returned.
        return;
      }
      // Each slot read without a monitor (SessionThreads.running), each interrupt made with none
      // held (into a local: nothing allocated). On JDK 25 a virtual thread's interrupt is an
      // unpark whose submit, in a full heap, retries until there is room
      // (VirtualThread.submitRunContinuation: park 100 ms, try again); made under the monitor
      // every session thread's end takes, it kept those ends from unwinding, so the heap never
      // freed: a deadlock until the close wait. Nor does the look itself take that monitor: a
      // pass looks at every slot every 50 ms, and a session thread's end blocked behind it would
      // unmount (JDK 24 and later) and need a submit to be woken, or pin its carrier (JDK 21).
      // Interrupting a thread that has just ended is harmless; a pass stalled in one interrupt is
      // taken over by the spare, whose second interrupt of that thread returns at once.
      for (int i = 0; i < threads.sessions(); i++) {
        Thread t = threads.running(i);
        if (t != null) {
          t.interrupt();
        }
      }
    });
    long grace = settings.closeWaitMillis();
    try {
      for (SessionContext context : contexts) {
        if (control.isCancelled()) {
          context.cancel();
          continue;
        }
        // Everything the session needs is made before its permit is taken: between taking it
        // and the thread's start nothing may fail unnoticed, or the run would wait for a
        // session that never ran.
        context.whenFreedByClose(freed);
        Runnable body = sessionBody(context, permits, threads, control, virtual);
        String name = "weft-session-" + context.index();
        if (!control.awaitSessions(onePermit, grace)) {
          context.cancel();
          continue;
        }
        if (control.isCancelled()) {
          permits.release();
          context.cancel();
          continue;
        }
        try {
          if (virtual) {
            VirtualThreads.start(name, body);
          } else {
            Thread thread = new Thread(body, name);
            thread.setDaemon(true);
            thread.start();
          }
          // Handed over: if the run gives up on it before its thread has even come to its frame,
          // it was left behind (and its frame, when it comes, does not connect).
          context.started();
        } catch (OutOfMemoryError e) {
          // The thread did not start (a start that throws leaves it unstarted): its permit
          // comes back here, or the run would wait for it for ever.
          permits.release();
          context.cancel();
          if (!HeapExhaustion.report(e, RunControl.STARTING_A_SESSION)) {
            throw e;
          }
        }
      }
    } finally {
      // Every session has ended once all permits are back (each thread's end told threads before
      // it gave its permit back); then the threads still in their last steps are waited for. An
      // aborted run waits only so long (see RunControl).
      if (control.awaitSessions(allPermits, grace)) {
        permits.release(all);
        control.awaitSessions(allGone, grace);
      } else {
        control.unended(all - permits.availablePermits());
      }
    }
    return result(contexts, start, control, window);
  }

  /**
   * Waits up to {@code nanos} for the session threads still in their last steps, and says whether
   * they are all gone. A platform thread is joined (a wait on its monitor: nothing allocated). A
   * virtual one is not: its join makes a latch and a queue node, and from JDK 20 a timed
   * {@code java.util.concurrent} wait with no room for its node waits until it acquires, past its
   * deadline, so an aborted run would outstay its close wait; it is looked at between parks of at
   * most {@link #GONE_POLL_NANOS} instead.
   */
  private static boolean awaitGone(SessionThreads threads, boolean virtual, long nanos) throws InterruptedException {
    Thread ending = threads.stillEnding();
    if (ending != null && nanos > 0) {
      if (virtual) {
        long until = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && ending.isAlive(); left = until - System.nanoTime()) {
          LockSupport.parkNanos(threads, Math.min(left, GONE_POLL_NANOS));
          if (Thread.interrupted()) {
            throw new InterruptedException();
          }
        }
      } else {
        TimeUnit.NANOSECONDS.timedJoin(ending, nanos);
      }
    }
    return threads.stillEnding() == null;
  }

  /**
   * What a session's thread runs: the session, then its end, which must not be lost whatever the
   * session met. Its permit comes back here, or, if its transport's close is reported later,
   * from that report. The end allocates nothing and calls nothing that can fail before the permit
   * is back (a monitor, array slots, the release; then the run's thread is woken): it runs when the
   * session failed, perhaps because the heap ran out, and an error before the release would keep
   * the run waiting for a session whose thread is gone. It waits for no other session thread (the
   * run's thread waits for them all: see SessionThreads).
   */
  private static Runnable sessionBody(SessionContext context, Semaphore permits, SessionThreads threads,
      RunControl control, boolean virtual) {
    int slot = context.index();
    return () -> {
      Thread self = Thread.currentThread();
      Throwable escaped = null;
      long metAt = 0L;
      try {
        if (virtual) {
          // Its socket reads are one untimed park each (see SocketTransport's read slices).
          try {
            VirtualThreads.markSessionThread();
          } catch (OutOfMemoryError e) {
            // No room for the mark: best effort, the session runs all the same, and its reads
            // keep their slices. The frame below meets the heap's end itself if it lasts.
          }
        }
        threads.started(slot, self);
        new SessionFrame(context).run();
      } catch (Throwable t) {
        // Stamped before the permit below goes back: once it is back the run may return, and a
        // run begun after that must not hear this report, however late it comes.
        metAt = HeapExhaustion.stamp();
        escaped = t;
      }
      try {
        // Before the permit goes back: once all are back the run's thread waits for the threads
        // this keeps, this one among them.
        threads.ended(slot, self);
        if (context.taskEnded()) {
          permits.release();
          control.wake();
        }
      } catch (Throwable t) {
        // The end's bookkeeping allocates nothing; should it fail all the same, its error is
        // not reported (it may come after the run returned), only handed on as below.
        if (escaped == null) {
          escaped = t;
          metAt = -1L;
        }
      }
      if (escaped != null) {
        // Never left to the JDK: on a virtual thread its uncaught-exception dispatch runs on the
        // carrier, and a dispatch that fails (an OutOfMemoryError thrown from the handler: no
        // room to print the trace) ends the carrier, a thread of the JDK's scheduler, and the
        // virtual threads queued on it are dropped (ForkJoinPool.deregisterWorker) and never
        // run again: their sessions can never end, nor give back what their stacks hold.
        uncaught(context, self, escaped, metAt);
      }
    };
  }

  /**
   * What came out of a session's thread that its frame did not handle (an error in the frame's
   * own last steps): the heap's end is reported, stamped with {@code metAt} (as SessionFrame
   * reports it; not for a session its run left behind, nor when {@code metAt} is -1), anything
   * else handed to the thread's uncaught-exception handler as the JDK would, but here a handler
   * that fails cannot end the thread's carrier. Never throws.
   */
  private static void uncaught(SessionContext context, Thread self, Throwable t, long metAt) {
    try {
      if (HeapExhaustion.isHeapExhausted(t)) {
        if (metAt >= 0L && !context.isLeftBehind()) {
          HeapExhaustion.report(t, RunControl.ENDING_A_SESSION, metAt);
        }
        return;
      }
      Thread.UncaughtExceptionHandler handler = self.getUncaughtExceptionHandler();
      if (handler != null) {
        handler.uncaughtException(self, t);
      }
    } catch (Throwable e) {
      // The handler failed (no room to print, say): the thread ends all the same, its carrier,
      // if it is virtual, unharmed; said through slf4j if there is room.
      try {
        LOG.error("session {}'s thread: its uncaught-exception handler failed on {}", context.index(), t, e);
      } catch (Throwable again) {
        // No room to say it either.
      }
    }
  }
}
