package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionCancels;
import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The cancellation of one run, between {@link SessionRunner#cancel()} (any thread) and the mode's
 * runner, which registers what cancelling means for it once it has something to cancel. A
 * cancel before that registration runs the action as soon as it is registered; the action may
 * run more than once, so it must be idempotent. An abort is a cancel with a reason, which the
 * run then throws.
 *
 * <p>An aborted run does not wait for ever: the heap ran out, and a session whose thread died of
 * it a second time, in its own failure handling, may never say that it ended. From the abort on,
 * the mode's waits for its sessions ({@link #awaitSessions}) share one grace period, the runner's
 * close wait; what has not ended by then is counted ({@link #unended()}) and left behind, each
 * such session's outcome {@code CANCELLED} with a {@link SessionCancelledException} of its own
 * that says so (or, if the heap has no room for one then, {@link #leftBehind()}, made with the
 * run), its thread or fiber abandoned; the outcomes the run returns do not change after it.
 *
 * <p>An abort cancels nothing on the thread that reports it (a session's, the run's own, SYNC's
 * caller, {@code weft-heap-watch}, an I/O thread): it records the reason, marks the run cancelled
 * (the sessions not yet started see it) and hands the run to {@link AbortCancels}, the JVM's
 * thread {@value AbortCancels#THREAD_NAME}, made long before, which makes the abort's cancel and
 * then cancels the run again every poll until the run is over or its grace has run out. The run's
 * own thread only looks and parks. So a close that takes long in a full heap (each allocation
 * there costs full collections) or never returns (on JDK 25, a virtual thread's socket close
 * waiting for a monitor that an unmounted virtual thread holds) cannot keep the run past its
 * grace, nor stop the thread that reported; and hundreds of sessions failing together, each
 * reporting to every run, cost one compare-and-set each. The abort allocates nothing.
 */
final class RunControl {
  /**
   * Where the runners met the heap's end, for the report. Not constants, so that their
   * literals are made as this class loads: a literal's first use allocates, and here that would
   * be when the heap has no room.
   */
  static final String RUN_THREAD;
  static final String STARTING_A_SESSION;
  static final String A_SESSION;
  static final String ENDING_A_SESSION;

  static {
    RUN_THREAD = "a run's own thread";
    STARTING_A_SESSION = "the run's thread starting a session";
    A_SESSION = "a session";
    ENDING_A_SESSION = "a session's thread ending";
  }

  /** The name of the thread that cancels aborted runs (see the class comment). */
  static final String RECANCEL_THREAD_NAME = AbortCancels.THREAD_NAME;
  /** What a session left behind by an aborted run says, as its outcome's failure. */
  static final String LEFT_BEHIND = "left behind: the run was aborted (the heap ran out) and this session had not"
      + " ended when the runner's close wait after the abort ran out; its thread or fiber was abandoned";

  /** How often a run's waiting thread looks for an abort: it only waits, so this costs nothing. */
  private static final long ABORT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Not aborted. */
  private static final int RUNNING = 0;
  /** Aborted: {@link AbortCancels} cancels it. */
  private static final int ABORTED = 1;

  private volatile boolean cancelled;
  private volatile Runnable onCancel;
  private volatile String abortedBecause;
  private volatile long abortedAtNanos;
  private volatile int unended;
  /** The run's thread while it waits in {@link #awaitSessions(Check, long)}, for {@link #wake()}. */
  private volatile Thread waiter;

  /** RUNNING -> ABORTED, by the first abort. Made with the run, so that an abort needs no heap. */
  private final AtomicInteger abortState = new AtomicInteger(RUNNING);
  /** How long after the abort the run's waits, and its cancels, go on: the runner's close wait. */
  private final long graceNanos;
  /** The next aborted run in {@link AbortCancels}' list. */
  volatile RunControl nextAborted;
  /** What the run throws if its thread has no room to make the exception of an abort. */
  private final RunAbortedException madeAhead = RunAbortedException.madeAhead();
  /** The failure of a session left behind when there is no room to make it its own, made with the run (see the class comment). */
  private final SessionCancelledException leftBehind = new SessionCancelledException(LEFT_BEHIND);
  /**
   * The failure of a session of this run cancelled before it connected when there is no room to
   * make it its own (see {@code SessionContext.cancelledWithNoRoom}), made with the run.
   */
  private final SessionCancelledException cancelledWithNoRoom =
      new SessionCancelledException(SessionContext.CANCELLED_WITH_NO_ROOM);
  /** The cancels of this run's sessions, made with the run (a close that throws logged once). */
  private final SessionCancels cancels = new SessionCancels();
  /** Set once the run's waits are over ({@link #over()}): its cancels stop. */
  private volatile boolean over;

  /** The clock of the abort's time and its grace: the system's, or a test's that moves when told. */
  private final Ticker ticker;

  /** A run whose waits after an abort last the runner's close wait, {@code graceMillis}. */
  RunControl(long graceMillis) {
    this(graceMillis, Ticker.system());
  }

  /** As {@link #RunControl(long)}, its abort's time and grace read on {@code ticker} (tests inject one). */
  RunControl(long graceMillis, Ticker ticker) {
    this.graceNanos = TimeUnit.MILLISECONDS.toNanos(graceMillis);
    this.ticker = ticker;
    // The JVM's abort canceller, made now, long before any abort.
    AbortCancels.start();
  }

  /**
   * Cancels the run for {@code reason}, which {@link #abortedBecause()} then gives; the first
   * reason stays. Cancels nothing on this thread: marks the run cancelled and hands it to
   * {@link AbortCancels} (see the class comment). Allocates nothing; any thread.
   */
  void abort(String reason) {
    if (!abortState.compareAndSet(RUNNING, ABORTED)) {
      return;
    }
    abortedAtNanos = ticker.nanoTime();
    abortedBecause = reason;
    cancelled = true;
    AbortCancels.aborted(this);
  }

  /** Now, on this run's clock (for {@link AbortCancels}' stall watch). */
  long nanoTime() {
    return ticker.nanoTime();
  }

  /**
   * Whether {@link AbortCancels} still cancels this aborted run: its waits not over, its grace
   * not run out.
   */
  boolean served() {
    return !over && ticker.nanoTime() - abortedAtNanos < graceNanos;
  }

  /**
   * Whether a cancel pass over this run's sessions goes on to the next session: not once the
   * run is over, nor on a canceller thread that stalled in a close and was replaced (see
   * {@link AbortCancels}). The modes' cancel actions ask before each session. Allocates nothing.
   */
  boolean nextSession() {
    return !over && AbortCancels.passGoesOn();
  }

  /** Why the run was aborted, or null. */
  String abortedBecause() {
    return abortedBecause;
  }

  boolean isCancelled() {
    return cancelled;
  }

  /**
   * What {@link #cancel()} does from now on; runs it at once if the run was cancelled (or aborted)
   * already. The modes register it before any session starts, so that run closes nothing (no
   * transport is open yet): it marks the sessions cancelled, so that none starts (in
   * CONTINUATIONS the scheduler, which then cancels each fiber as it admits it). An aborted run's
   * closes are {@link AbortCancels}' all the same.
   */
  void onCancel(Runnable action) {
    onCancel = action;
    if (cancelled) {
      action.run();
    }
  }

  void cancel() {
    cancelled = true;
    Runnable action = onCancel;
    if (action != null) {
      action.run();
    }
  }

  /** A wait with a time limit, true once what it waits for has happened. */
  @FunctionalInterface
  interface TimedWait {
    boolean await(long nanos) throws InterruptedException;
  }

  /** What a run waits for, looked at without blocking and without allocating. */
  @FunctionalInterface
  interface Check {
    boolean done();
  }

  /**
   * Wakes the run's thread if it waits in {@link #awaitSessions(Check, long)}: what it waits
   * for may have happened. Allocates nothing; any thread.
   */
  void wake() {
    Thread t = waiter;
    if (t != null) {
      LockSupport.unpark(t);
    }
  }

  /**
   * As {@link #awaitSessions(TimedWait, long)}, but needing no heap at all: looks at
   * {@code ended} whenever {@link #wake()} is called (and at every look), and parks in between.
   * A timed wait of {@code java.util.concurrent} makes a queue node each time; when there is no
   * room for it, JDK 17 throws, but later JDKs ({@code AbstractQueuedSynchronizer.acquireOnOOME},
   * in JDK 25) wait until they acquire, past the wait's deadline and past the abort's grace.
   *
   * @return true if {@code ended} said so; false if the grace ran out first
   * @throws InterruptedException if the waiting thread is interrupted
   */
  boolean awaitSessions(Check ended, long graceMillis) throws InterruptedException {
    return await(ended, graceMillis, true);
  }

  /**
   * As {@link #awaitSessions(Check, long)}, but an interrupt does not end it: the wait goes on
   * for {@code graceMillis} at most from the interrupt (or the abort's grace, whichever ends
   * first), and the thread's interrupt status is set again when it returns. For SYNC, whose run
   * never threw for an interrupt: the flag there is its sessions' business (a task may leave it
   * set), and a close reported a processor turn late must not turn it into a lost run.
   *
   * @return true if {@code ended} said so; false if a grace ran out first
   */
  boolean awaitSessionsUninterruptibly(Check ended, long graceMillis) {
    try {
      return await(ended, graceMillis, false);
    } catch (InterruptedException e) {
      throw new AssertionError("an uninterruptible wait threw for an interrupt", e);
    }
  }

  /**
   * The wait of both: with {@code interruptible}, throws at an interrupt; without, takes the
   * interrupt, keeps waiting for the grace at most, and sets the status again before it returns.
   */
  private boolean await(Check ended, long graceMillis, boolean interruptible) throws InterruptedException {
    waiter = Thread.currentThread();
    long graceNanos = TimeUnit.MILLISECONDS.toNanos(graceMillis);
    boolean interrupted = false;
    long interruptedAtNanos = 0L;
    try {
      for (;;) {
        if (ended.done()) {
          return true;
        }
        long slice = ABORT_POLL_NANOS;
        if (Thread.interrupted()) {
          if (interruptible) {
            throw new InterruptedException();
          }
          if (!interrupted) {
            interrupted = true;
            interruptedAtNanos = ticker.nanoTime();
          }
        }
        if (interrupted) {
          long left = interruptedAtNanos + graceNanos - ticker.nanoTime();
          if (left <= 0L) {
            return false;
          }
          slice = Math.min(slice, left);
        }
        if (abortedBecause != null) {
          long left = abortedAtNanos + graceNanos - ticker.nanoTime();
          if (left <= 0L) {
            return false;
          }
          slice = Math.min(slice, left);
        }
        LockSupport.parkNanos(this, slice);
      }
    } finally {
      waiter = null;
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits for {@code wait}: for good while the run goes on; once it is aborted, until
   * {@code graceMillis} after the abort at most (the run is cancelled meanwhile by
   * {@link AbortCancels}, never by this thread). A wait that fails for want of heap (a queue node)
   * is tried again.
   *
   * @return true if what it waited for happened; false if the grace ran out first
   */
  boolean awaitSessions(TimedWait wait, long graceMillis) throws InterruptedException {
    for (;;) {
      long slice = ABORT_POLL_NANOS;
      long left = Long.MAX_VALUE;
      if (abortedBecause != null) {
        left = abortedAtNanos + TimeUnit.MILLISECONDS.toNanos(graceMillis) - ticker.nanoTime();
        slice = Math.max(0L, Math.min(slice, left));
      }
      try {
        if (wait.await(slice)) {
          return true;
        }
      } catch (OutOfMemoryError e) {
        HeapExhaustion.report(e, RUN_THREAD);
        LockSupport.parkNanos(this, slice);
      }
      if (abortedBecause != null && left <= slice) {
        return false;
      }
    }
  }

  /**
   * The run's waits are over (it returns or throws): its cancels stop, a pass under way at its next
   * session. A close under way stays its canceller's: it ends when that returns, if ever, and the
   * run does not wait for it.
   */
  void over() {
    over = true;
    if (abortState.get() != RUNNING) {
      // Off the list (if an abort still pushing it comes after this, the canceller's next round,
      // finding the run over, takes it off).
      AbortCancels.over(this);
    }
  }

  /** The failure of a session of this run cancelled before it connected, when no room is left to make one of its own: made with the run. */
  SessionCancelledException cancelledWithNoRoom() {
    return cancelledWithNoRoom;
  }

  /** The failure of a session left behind by this run when no room is left to make one of its own: made with the run. */
  SessionCancelledException leftBehind() {
    return leftBehind;
  }

  /** One cancel pass, on {@link AbortCancels}' thread: what the mode registered, whatever it throws. */
  void cancelHere() {
    Runnable action = onCancel;
    if (action != null) {
      try {
        action.run();
      } catch (OutOfMemoryError e) {
        // Again at the next poll.
      } catch (RuntimeException e) {
        // A close that threw (the mode's loop goes on past it; this is what escaped that): the
        // cancels go on at the next poll, and the canceller lives on.
        cancels.threw(e);
      } catch (Error e) {
        if (e instanceof VirtualMachineError) {
          // Not the session's (StackOverflowError, InternalError): passed on; AbortCancels' round
          // ends this run's pass there and serves the runs after it all the same.
          throw e;
        }
        // A close that failed with a LinkageError, an AssertionError: the cancels go on.
      }
    }
  }

  /** The cancels of this run's sessions, for the modes' cancel actions. */
  SessionCancels cancels() {
    return cancels;
  }

  /**
   * After {@code e}, met making something the run's end needs: waits a little for the heap if
   * the run was aborted and the abort's grace has not run out (the sessions of this run and of
   * others are still giving their heap back), for the caller to try again; throws {@code e}
   * otherwise.
   */
  void waitForHeap(OutOfMemoryError e, long graceMillis) {
    if (abortedBecause == null
        || ticker.nanoTime() - abortedAtNanos > TimeUnit.MILLISECONDS.toNanos(graceMillis)) {
      throw e;
    }
    LockSupport.parkNanos(this, ABORT_POLL_NANOS);
  }

  /**
   * The exception, made with the run, that says what {@link RunAbortedException}'s constructor
   * would have said: for a run's thread that found no room to make one within the abort's grace.
   * Allocates nothing.
   */
  RunAbortedException abortedWithNoRoom(String reason, int unended, long graceMillis, RunResult<?> result) {
    return madeAhead.because(reason, unended, graceMillis, result);
  }

  /** Records that {@code count} sessions had not ended when the abort's grace ran out. */
  void unended(int count) {
    unended = count;
  }

  /** How many sessions had not ended when an aborted run's grace ran out; 0 if all did. */
  int unended() {
    return unended;
  }
}
