package io.weft.continuations.internal.runtime;

import io.weft.continuations.NotInstrumentedError;
import io.weft.continuations.runtime.spi.DrivenSession;
import io.weft.continuations.runtime.spi.ReleasingRegistration;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.SuspendableSession;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Deadlines;
import io.weft.transport.spi.Ticker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.SocketAddress;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.commons.javaflow.core.ResumeParameter;
import org.apache.commons.javaflow.core.StackRecorder;
import org.apache.commons.javaflow.core.SuspendResult;

/**
 * One session run as a continuation, and the state machine that lets it be woken from any thread
 * and still never run on two threads at once.
 *
 * <p>States and their transitions, each by one atomic step (the {@code java.util.concurrent}
 * way: whoever makes a transition owns what follows it):
 * <ul>
 *   <li>{@code NEW -> READY}: admitted by the scheduler; enqueued for a worker, or, admitted as
 *       another fiber ended on an event loop, run next on that loop.
 *   <li>{@code READY -> RUNNING}: a worker that took the fiber off the ready queue, or the thread
 *       that made it ready itself, when that is a transport's event-loop thread free to run it
 *       (the I/O-thread resume: {@code PARKED -> READY -> RUNNING} on the thread the bytes
 *       arrived on, with no queue between). Only the thread that made the fiber READY, or the one
 *       worker that dequeued it, runs it.
 *   <li>{@code RUNNING -> PARKED}: the slice ended in a suspend, and no wake-up came meanwhile.
 *   <li>{@code RUNNING -> RUNNING_WOKEN}: a wait was woken (on an I/O thread, inline, by the
 *       timer or a cancellation) before the slice finished unwinding its suspend.
 *   <li>{@code RUNNING_WOKEN -> READY}: at the end of that slice; the fiber goes straight back on
 *       the ready queue instead of parking.
 *   <li>{@code PARKED -> READY}: a wait was woken; the waker runs the fiber in place (event loop)
 *       or enqueues it (anywhere else).
 *   <li>{@code RUNNING -> DONE}: the session ended.
 * </ul>
 * A wake-up in any other state does nothing: a wait's own state lets only the first of its
 * endings through, and a woken fiber re-checks what it waited for.
 */
public final class Fiber extends SessionContext implements SuspendableSession, DrivenSession, Clocked {
  static final int NEW = 0;
  static final int READY = 1;
  static final int RUNNING = 2;
  static final int RUNNING_WOKEN = 3;
  static final int PARKED = 4;
  static final int DONE = 5;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Fiber.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** For the report of a failed clean-up; not a constant, so that its literal is made as the class loads. */
  private static final String ENDING;

  static {
    ENDING = "a session ending";
  }

  /** NEW (0) at first; a field with a VarHandle rather than an AtomicInteger: one object less per session. */
  private volatile int state;
  private final Scheduler scheduler;

  /** The scheduler this fiber runs on. */
  Scheduler scheduler() {
    return scheduler;
  }
  private final boolean debugFrames;
  private Runnable frame;
  /**
   * The session's captured stack, from its first slice until it ends (then null, so that what
   * it held goes): set once, so the slices store nothing into this long-lived object. Held and
   * resumed directly rather than through JavaFlow's {@code Continuation}, which makes a new
   * single-shot {@code Continuation} at every suspend (kept alive as long as the session waits,
   * so a young collection copies one per waiting session) and a new {@code ResumeParameter} at
   * every resume (see {@link #execute}).
   */
  private StackRecorder continuation;
  /** What every slice is resumed with: this fiber, the session that {@code Suspend} finds; made at the first slice. */
  private ResumeParameter resumeWith;
  private volatile Wait currentWait;
  /**
   * A driven scheduler's fiber: the wait that its waits on a {@link ReleasingRegistration} take
   * over one after the other (see {@link #newWait}), one for timed waits and one for waits
   * without a timeout; null until the first such wait.
   */
  private Wait reusableTimed;
  private Wait reusableUntimed;
  /** Waits this fiber suspended on, and of those the ones it resumed at: the suspend token. */
  private int suspended;
  private int resumedAt;
  private NotInstrumentedError swallow;
  /** Debug mode: thrown where the session resumes, so its own finally blocks release its locks. */
  private NotInstrumentedError failAtResume;
  /** The session's slf4j MDC while it is suspended, or null. */
  private Map<String, String> mdc;
  /** Set by the thread this fiber ends on, read by that same thread (see takeSuccessor). */
  private Fiber successor;
  /** The next on the scheduler's stranded list: fibers that found no heap for a queue node, and a cancelled run's wake-ups (see Scheduler.enqueue). */
  Fiber strandedNext;
  /** {@code SessionLocal} values, made on first use. */
  private Map<Object, Object> locals;
  /** What the run's {@code ThreadContext}s took off the thread at the last suspend, or null. */
  private Object[] carried;
  /** The thread-locals the session used through rewritten code, made on first use. */
  private ThreadLocalSwap threadLocals;
  /** This session's place with the scheduler's wait timer, made at its first timed wait. */
  private WaitTimer.Slot timeoutSlot;

  /**
   * The clock this session's timed waits are measured on, its scheduler's ({@link
   * Scheduler#clock()}): what code that computes a wait's timeout from a deadline of its own reads
   * ({@code SessionSemaphore}), finding the session as {@code Suspend} does, in the continuation's
   * context.
   */
  @Override
  public Ticker ticker() {
    return scheduler.clock();
  }

  public Fiber(int index, Connector connector, SocketAddress address, Timeout timeout,
      SessionTask<?> task, Scheduler scheduler, boolean debugFrames) {
    super(index, connector, address, timeout, task);
    this.scheduler = scheduler;
    this.debugFrames = debugFrames;
  }

  void frame(Runnable frame) {
    this.frame = frame;
  }

  /**
   * Registers a wait; the caller suspends unless the returned wait is already settled. Also the
   * cheap run-time check: a wait begun while the stack recorder is still capturing means an
   * earlier suspend was swallowed by a frame that was not rewritten.
   */
  @Override
  public Wait arm(StackRecorder recorder, WaitRegistration registration, long timeoutNanos)
      throws SessionCancelledException {
    if (recorder.isCapturing) {
      throw swallowed();
    }
    if (cancelled) {
      throw cancelledException();
    }
    if (debugFrames || scheduler.probing()) {
      // Debug mode; or the first suspends of a run, and all once one was swallowed: name the
      // frame while it is still on the stack.
      try {
        FrameChecker.checkSuspendPath(index());
      } catch (NotInstrumentedError e) {
        scheduler.probeEverySuspend();
        throw recorded(e);
      }
    }
    Wait wait = newWait(registration, timeoutNanos);
    registration.register(wait);
    if (timeoutNanos == 0L) {
      wait.compareAndSet(Wait.ARMING, Wait.POLLED);
      return wait;
    }
    if (!wait.compareAndSet(Wait.ARMING, Wait.ARMED)) {
      return wait;
    }
    if (timeoutNanos != Deadlines.FOREVER) {
      scheduler.armTimeout(this, wait, registration, timeoutNanos);
    }
    currentWait = wait;
    suspended++;
    mdc = Mdc.takeOff();
    if (threadLocals != null) {
      threadLocals.takeOff();
    }
    CarriedContexts contexts = scheduler.contexts();
    if (!contexts.isEmpty()) {
      carried = contexts.takeOff();
    }
    if (cancelled) {
      wait.cancel();
    }
    return wait;
  }

  /**
   * The wait for a new {@link #arm}: a new one, or under a driven scheduler one of the fiber's
   * reusable ones, when no one can still run it. A wait's object is the wake-up its registration
   * holds and what the timer times out, so it is reused only when both let go of it when it
   * ended: the registration by its contract ({@link ReleasingRegistration}; and only such
   * registrations ever held this object), the driven scheduler's timer by timing a wait out at
   * its latest arm ({@code WaitTimeouts}), which a timed wait always makes. A wait without a
   * timeout makes no arm, so it never takes over an object the timer has seen (an event of the
   * timer may still come for it): such waits share an object of their own. A poll (timeout 0)
   * never reuses: its registration may keep the wake-up. On the scheduler's one thread no late
   * waker can race the reuse. One object less per wait, and no new object for the collector to
   * copy while the session waits.
   */
  private Wait newWait(WaitRegistration registration, long timeoutNanos) {
    if (timeoutNanos == 0L || !(registration instanceof ReleasingRegistration) || !scheduler.isDriven()) {
      return new Wait(this);
    }
    boolean timed = timeoutNanos != Deadlines.FOREVER;
    Wait wait = timed ? reusableTimed : reusableUntimed;
    if (wait != null && wait.isOver()) {
      wait.rearm();
      return wait;
    }
    wait = new Wait(this);
    if (timed) {
      reusableTimed = wait;
    } else {
      reusableUntimed = wait;
    }
    return wait;
  }

  /** Suspend.await calls this where the continuation resumes: the token is consumed. */
  @Override
  public void resumedAtWait() {
    resumedAt = suspended;
    Map<String, String> context = mdc;
    if (context != null) {
      mdc = null;
      Mdc.putBack(context);
    }
    if (threadLocals != null) {
      threadLocals.putBack();
    }
    Object[] taken = carried;
    if (taken != null) {
      carried = null;
      scheduler.contexts().putBack(taken);
    }
    NotInstrumentedError e = failAtResume;
    if (e != null) {
      failAtResume = null;
      throw recorded(e);
    }
  }

  /**
   * A frame that was not rewritten swallowed a suspend, and rewritten code went on running: the
   * error that ends the session (the first one named, whatever is thrown after it). From now on
   * every suspend of this run is checked, so the frame is named while it is on the stack.
   */
  @Override
  public NotInstrumentedError swallowed() {
    scheduler.probeEverySuspend();
    return recorded(FrameChecker.swallowedSuspend(index()));
  }

  /**
   * A resume found a frame that was not rewritten where a rewritten one had captured itself
   * ({@link Guard#onResume}): the error that ends the session. From now on every suspend of this
   * run is checked, so the frame is named while it is on the stack.
   */
  NotInstrumentedError resumedInto(NotInstrumentedError e) {
    scheduler.probeEverySuspend();
    return recorded(e);
  }

  /**
   * The session's outcome is the first such error, whatever the session's code does with it
   * (reflection wraps it, a {@code catch (Exception e)} around that swallows it).
   */
  private NotInstrumentedError recorded(NotInstrumentedError e) {
    if (swallow == null) {
      swallow = e;
    }
    return e;
  }

  @Override
  public NotInstrumentedError swallowError() {
    return swallow;
  }

  /**
   * The exception a cancelled session's wait (or its next one) throws. With no room for one of its
   * own, the one made with its run: the session was cancelled, it did not meet the heap's end,
   * and failing it with the error would have its frame report the heap again and again, each
   * report's words costing the one worker full collections while the run's other cancels wait
   * (session 16's slow MINA children). Throws the error only if no run made one ahead. That one is
   * shared by the run's sessions and now reaches the task's code: a try-with-resources whose close
   * throws adds to its suppressed exceptions, which every session sharing it then shows.
   */
  SessionCancelledException cancelledException() {
    try {
      return new SessionCancelledException("session " + index() + " cancelled");
    } catch (OutOfMemoryError e) {
      SessionCancelledException madeAhead = cancelledWithNoRoom();
      if (madeAhead == null) {
        throw e;
      }
      return madeAhead;
    }
  }

  /** Makes a new fiber ready to start. */
  void wake0() {
    if (STATE.compareAndSet(this, NEW, READY)) {
      scheduler.enqueue(this);
    }
  }

  /**
   * Makes a new fiber ready to start on the calling thread, which then owns its run (see
   * {@link Scheduler#done}); false if it was not new.
   */
  boolean readyOnThisThread() {
    return STATE.compareAndSet(this, NEW, READY);
  }

  /** The fiber this one admitted as it ended, to run next on this same thread; null if none. */
  void successor(Fiber next) {
    successor = next;
  }

  /** Returns and forgets {@link #successor(Fiber)}'s fiber; null if none. */
  Fiber takeSuccessor() {
    Fiber next = successor;
    successor = null;
    return next;
  }

  /**
   * Called once per ended wait, from any thread: by the one thread whose compare-and-set ended
   * that wait (see {@link Wait}).
   *
   * <p>{@code PARKED -> READY} is a release store, not a compare-and-set: only the waker of the
   * wait the fiber is parked on can see PARKED, and nothing else writes the state until that
   * waker has. The fiber parks only at the end of a slice that armed exactly one wait it has not
   * resumed at (runSlice's account fails the session otherwise), so while it is parked that wait
   * is the one whose ending has not yet reached this method; each earlier wait's waker made its
   * transition (to READY or RUNNING_WOKEN) before the fiber could run on past that wait, and a
   * waker that comes late, or lost its wait's compare-and-set, never gets here for it. The
   * slice's own {@code RUNNING -> PARKED} is from RUNNING, and {@link #trimCapturedStack} only
   * reads. The store is published to the thread that runs the fiber next by the hand-off in
   * {@link Scheduler#ready} (this thread, or the ready queue's).
   */
  void wake() {
    for (;;) {
      int s = state;
      if (s == PARKED) {
        STATE.setRelease(this, READY);
        scheduler.ready(this);
        return;
      } else if (s == RUNNING) {
        if (STATE.compareAndSet(this, RUNNING, RUNNING_WOKEN)) {
          return;
        }
      } else {
        return;
      }
    }
  }

  /**
   * Cancels this session: first its wait ({@link #cancelWait}), then its transport's close
   * ({@link SessionContext#cancel}). In that order: the close can be slow or fail in a full heap,
   * and the wake-up must not wait for it.
   */
  @Override
  public void cancel() {
    cancelWait();
    super.cancel();
  }

  /**
   * Marks this session cancelled and ends the wait it is suspended on, if any, so that it resumes
   * on the scheduler's workers and meets its cancel there, unwinding its stack: allocates
   * nothing, closes nothing, and waits for nothing but the scheduler's stranded-list monitor (held
   * for a few stores by whoever strands or takes a fiber; see {@link Scheduler#enqueue}). Called on
   * an event loop that is free to run a session (a caller cancelling from a transport's handler),
   * the woken session runs there and then, in place (see {@link Scheduler#ready}), before this
   * returns. A session not suspended now meets the cancel at its
   * next wait ({@link #arm}); one that has ended keeps its outcome. A run's cancel does this for
   * every session before it closes any transport ({@link Scheduler#cancel}): in a full heap each
   * allocation of a close costs the JVM full collections before it fails, so a close can take
   * seconds, and sessions woken only by their closes (the wake-up comes after the library's close)
   * kept what their stacks held, and the heap full, past the run's close wait (RunOutOfHeapTest's
   * MINA child: 583 of 600 hog sessions never cancelled 30 s after the abort). The woken
   * session's read or flush passes the {@code SessionCancelledException} on without closing its
   * transport; its frame's close, or the canceller's, closes it ("closed by its owner").
   */
  void cancelWait() {
    // Written once: an aborted run's passes come every 50 ms during its grace, each over the
    // whole batch (a million sessions for weft-load -u 1000000), and a read costs no store. A
    // read that sees true still orders as the Dekker pair with arm's re-check needs: the write it
    // saw came before it, so a wait armed after that write meets it there.
    if (!cancelled && !isFinished()) {
      cancelled = true;
    }
    Wait wait = currentWait;
    if (wait != null) {
      wait.cancel();
    }
  }

  /**
   * Runs the continuation until it suspends or ends; only on the thread that owns the READY
   * state (a worker that dequeued it, or the event loop that made it ready). RUNNING
   * needs no fence: a waker can only reach this fiber through a wait that the slice registers
   * later, by a volatile write, so it sees RUNNING (or later) through that write.
   */
  void runSlice() {
    if (resumeWith == null && cancelled) {
      Throwable failure;
      try {
        failure = cancelledException();
      } catch (OutOfMemoryError e) {
        // Cancelled all the same (its outcome says so), with the exception made with its run: not
        // the error, which this fiber did not meet (it never started).
        failure = cancelledWithNoRoom();
        if (failure == null) {
          failure = e;
        }
      }
      failed(failure);
      finish();
      return;
    }
    StackRecorder next;
    try {
      if (resumeWith == null) {
        STATE.setRelease(this, RUNNING);
        resumeWith = ResumeParameter.value(this);
        continuation = new StackRecorder(frame);
        next = execute(continuation, resumeWith);
      } else {
        STATE.setRelease(this, RUNNING);
        next = execute(continuation, resumeWith);
      }
    } catch (Throwable engineFailure) {
      failed(engineFailure);
      finish();
      return;
    }
    for (;;) {
      if (next == null ? resumedAt != suspended : suspended - resumedAt != 1) {
        // Weft's own account, apart from the engine's: the continuation was resumed but did
        // not come back at the wait it suspended on, or it stopped without suspending on one.
        // A frame that was not rewritten was restored wrongly; what the session did is not its
        // outcome, and it must not run on.
        failedHard(swallow != null ? swallow : FrameChecker.swallowedSuspend(index()));
        if (next != null) {
          next.execute(ResumeParameter.exit());
        }
        finish();
        return;
      }
      if (next == null) {
        finish();
        return;
      }
      NotInstrumentedError held = debugFrames ? HeldLocks.find(next, index()) : null;
      if (held == null) {
        break;
      }
      // Resume at once, on this thread, with the error: unwinding through the session's own
      // code releases the lock on the thread that holds it.
      failAtResume = held;
      try {
        next = execute(next, resumeWith);
      } catch (Throwable engineFailure) {
        failed(engineFailure);
        finish();
        return;
      }
    }
    // Suspended: next is the fiber's own stack, kept in continuation since its first slice.
    if (!STATE.compareAndSet(this, RUNNING, PARKED)) {
      // Woken while still unwinding: ready again at once. A release store, as in wake: the
      // one waker has made its transition (to RUNNING_WOKEN), and the queue publishes this.
      STATE.setRelease(this, READY);
      scheduler.enqueue(this);
    }
  }

  /**
   * Runs {@code stack} (started, or resumed where it suspended) until it suspends or ends: what
   * JavaFlow's single-shot {@code Continuation.startWith} and {@code resume} do, without their
   * new {@code Continuation} per suspend and {@code ResumeParameter} per resume. The fiber's own
   * state machine already makes sure a stack is resumed once per suspend, which is what the
   * single-shot {@code Continuation} checks.
   *
   * @return {@code stack}, suspended; or null when the session's code ended
   */
  private static StackRecorder execute(StackRecorder stack, ResumeParameter with) {
    SuspendResult result = stack.execute(with);
    if (result == SuspendResult.EXIT || result == SuspendResult.CANCEL) {
      return null;
    }
    if (result == SuspendResult.AGAIN) {
      throw new IllegalStateException("Single-shot continuation may not be re-tried");
    }
    return stack;
  }

  /**
   * Trims the captured stack of this suspended fiber to what it holds (see
   * {@link CapturedStacks}): for a driven scheduler whose many sessions spend their life waiting.
   * Only on the thread that drives the fiber, between its slices.
   */
  @Override
  public void trimCapturedStack() {
    StackRecorder c = continuation;
    if (c != null && state == PARKED) {
      CapturedStacks.trim(c);
    }
  }

  /** This session's place with the wait timer; made on first use, by the thread that runs it. */
  WaitTimer.Slot timeoutSlot() {
    WaitTimer.Slot slot = timeoutSlot;
    if (slot == null) {
      slot = new WaitTimer.Slot();
      timeoutSlot = slot;
    }
    return slot;
  }

  /** This session's {@code SessionLocal} values. */
  public Map<Object, Object> locals() {
    Map<Object, Object> m = locals;
    if (m == null) {
      m = new IdentityHashMap<>();
      locals = m;
    }
    return m;
  }

  /** The thread-locals this session uses through rewritten code. */
  ThreadLocalSwap threadLocals() {
    ThreadLocalSwap swap = threadLocals;
    if (swap == null) {
      swap = new ThreadLocalSwap(scheduler.inherited());
      threadLocals = swap;
    }
    return swap;
  }

  /**
   * Ends this fiber, once, on the thread that ran its last slice; never throws. The run's count
   * of ended fibers ({@link Scheduler#done}) comes last and whatever happens before it: the heap
   * may have run out, and every step before it can allocate (the MDC, a timer queue node).
   */
  private void finish() {
    try {
      Mdc.clear();
      locals = null;
      if (threadLocals != null) {
        threadLocals.clear();
        threadLocals = null;
      }
      CarriedContexts contexts = scheduler.contexts();
      if (!contexts.isEmpty()) {
        contexts.takeOff();
      }
    } catch (OutOfMemoryError e) {
      // The outcome is recorded; what is left of the clean-up goes with the fiber.
      scheduler.reportHeap(e, ENDING);
    } finally {
      state = DONE;
      continuation = null;
      currentWait = null;
      reusableTimed = null;
      reusableUntimed = null;
      WaitTimer.Slot slot = timeoutSlot;
      timeoutSlot = null;
      try {
        if (slot != null) {
          scheduler.retireTimeouts(slot);
        }
      } catch (OutOfMemoryError e) {
        // The timer drops a retired slot at its next look at it all the same.
        scheduler.reportHeap(e, ENDING);
      } finally {
        // Its connection's close, if still to be reported, frees its place instead (freedByClose).
        if (taskEnded()) {
          scheduler.done(this, true);
        }
      }
    }
  }

  /**
   * The close of this fiber's connection was reported after the fiber ended, on the reporting
   * thread (an I/O thread at the end of its turn, a loop's task, a closer): the fiber's place
   * goes to the next one now.
   */
  @Override
  protected void freedByClose() {
    scheduler.done(this, false);
  }
}
