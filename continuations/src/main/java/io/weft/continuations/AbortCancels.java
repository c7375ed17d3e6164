package io.weft.continuations;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The cancels of aborted runs, for the whole JVM: an abort ({@link RunControl#abort}) only records
 * its reason, puts its run on a list and wakes the thread here, {@value #THREAD_NAME}, which makes
 * the abort's cancel and then cancels the run again every poll until the run is over or its close
 * wait after the abort has run out. No reporting thread (a session's, the run's own, SYNC's caller,
 * {@code weft-heap-watch}, an I/O thread) ever closes a session for an abort: a close can take tens
 * of seconds in a full heap or never return, and would stop that thread with it.
 *
 * <p>Nothing here is made at the abort: the thread and its spare are made with the first run of
 * the JVM ({@link #start()}, from {@link RunControl}'s constructor) and then wait, parked, with no
 * aborted run (two idle daemons per JVM); the list is intrusive (each run's own
 * {@link RunControl#nextAborted} link, pushed with a compare-and-set); this class has no lambda
 * and no {@code invokedynamic} call site ({@code NoConcatCallSitesTest}). The threads are the
 * JVM's, not their maker's: in the system thread group, at normal priority, with no thread-locals,
 * context class loader or access control context of the thread that happened to make them (the
 * first run's caller). If no thread can be made then, the run goes on without one and the next
 * run tries again; an abort with no thread here cancels nothing, and the run ends at its close
 * wait.
 *
 * <p>A close that never returns stops only the thread that made it. While runs are served a
 * second thread, the spare, watches the first: if a pass over a run's sessions makes no progress
 * for {@value #STALLED_LOOKS} polls with its thread not running (blocked or waiting), or for a
 * second of that run's clock however its thread is (a close can be slow in a full heap, and a full
 * collection pauses both threads: {@link #STALLED_NANOS}), the spare takes the work over (and makes a new spare, best
 * effort, before each session of its passes: the heap may have no room then), and
 * its passes skip a session whose cancel is still under way ({@code SessionContext.cancel}), so
 * the other sessions and the other runs are cancelled all the same (and a stalled thread does not
 * keep later aborts from being served). A stalled thread that comes back stops its pass at the
 * next session and becomes the spare if there is none, or ends. At most {@value #MAX_THREADS} threads in all:
 * past that (as many closes blocked for good), the runs end at their close wait all the same, the
 * sessions not cancelled left behind. A thread stalled in a close stays in it for as long as the
 * close does (no close can be taken back), holding that run's state; it is the JVM's, not the
 * run's, and the run does not wait for it. The spare never ends: with no aborted run listed and
 * no pass under way it parks until the next abort.
 */
final class AbortCancels {
  /** The name of every thread here. */
  static final String THREAD_NAME = "weft-abort-recancel";
  /** The most threads at once, stalled ones included. */
  static final int MAX_THREADS = 8;
  /** How often aborted runs are cancelled again, and the spare looks at the pass under way. */
  static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  /**
   * Looks of the spare that saw no progress of the pass under way, its thread not running (blocked,
   * waiting: a close stuck on a monitor or a latch), before it takes the work over.
   */
  static final int STALLED_LOOKS = 2;
  /**
   * How long a pass whose thread is running (a slow close in a full heap, or one stuck in a native
   * call) may make no progress, read on the clock of the run it cancels, before the spare takes the
   * work over. A full collection pauses both threads: looks after such pauses are not a stall.
   */
  static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** The aborted runs not yet over, newest first, linked through {@link RunControl#nextAborted}. */
  private static final AtomicReference<RunControl> ABORTED = new AtomicReference<>();
  /** The thread of a pass now under way, null between passes. */
  private static final AtomicReference<Thread> PASSER = new AtomicReference<>();
  /** The run of the pass now under way (its clock times a stall); set before {@link #PASSER}. */
  private static volatile RunControl passing;
  /** The spare's looks so far (for tests: that it looked and did not take over). */
  static volatile long looks;
  /** Guards unlinking from {@link #ABORTED}, the roles and the count; never held during a close. */
  private static final Object LOCK = new Object();

  /** The thread that makes the passes; null before the first run. */
  private static volatile Worker active;
  /** The thread that watches the active one while runs are served; null if none. */
  private static volatile Worker spare;
  /** Bumped by the active thread at every session of its passes: the spare looks at it. */
  private static volatile long progress;
  /**
   * After a spare could not be made during a pass (no room), how long before the passes try again
   * (each try in a full heap costs full collections); the next run's {@link #start()} tries at once.
   */
  static final long SPARE_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);
  /** When a spare last could not be made ({@link System#nanoTime()}, never 0), or 0. */
  private static volatile long spareRefusedAt;
  /** Threads alive here; written under LOCK (read without it only as a hint). */
  private static volatile int threads;

  private AbortCancels() {}

  /**
   * Makes the active thread and its spare if there are none yet: with a run, long before any
   * abort, so that an abort finds both parked and makes nothing. A spare that cannot be made now
   * is tried again with the next run and before each session of a pass ({@link #passGoesOn()}).
   */
  static void start() {
    if (active != null && spare != null) {
      return;
    }
    if (active == null) {
      synchronized (LOCK) {
        if (active == null) {
          boolean started = false;
          try {
            Worker w = newWorker();
            active = w;
            threads++;
            try {
              w.start();
              started = true;
            } finally {
              if (!started) {
                active = null;
                threads--;
              }
            }
          } catch (OutOfMemoryError | RuntimeException e) {
            // No thread to be had ("unable to create native thread"): the run goes on without
            // one, and the next run tries again. An abort of a run with no canceller cancels
            // nothing: the run ends at its close wait, the sessions under way left behind.
          }
        }
      }
    }
    if (spare == null) {
      // A new run: the heap has room again, as a rule; whatever a pass found, try now.
      spareRefusedAt = 0L;
      makeSpare();
    }
  }

  /**
   * A new thread here, in the JVM's system thread group, at normal priority, with no inherited
   * thread-locals, context loader or access control context: it serves every run of the JVM, so
   * nothing of the thread that happened to make it (the first run's caller: a web application's
   * thread, a test's) may stay with it, nor be kept reachable by it for the JVM's life (on JDK
   * 17-23 a thread keeps the access control context of its maker, and with it the protection
   * domains, and so the class loaders, of every frame on the maker's stack).
   */
  @SuppressWarnings("removal") // AccessController: where it still acts, it is what drops the maker's context
  private static Worker newWorker() {
    return java.security.AccessController.doPrivileged(NEW_WORKER);
  }

  /** Makes a {@link Worker} (under {@code doPrivileged}: its context is this class's alone). No lambda here. */
  private static final class NewWorker implements java.security.PrivilegedAction<Worker> {
    @Override
    public Worker run() {
      return new Worker();
    }
  }

  private static final NewWorker NEW_WORKER = new NewWorker();
  /**
   * {@link Thread.State#RUNNABLE}, resolved as this class loads, with {@link Thread#getState()}'s
   * path: the spare's first look at a stalled pass comes with the heap full, and resolving a class
   * entry there first can need the heap.
   */
  private static final Thread.State RUNNING;

  static {
    // getState's own path linked now too.
    Thread.currentThread().getState();
    RUNNING = Thread.State.RUNNABLE;
  }

  /** The root of the JVM's thread groups ("system"). */
  private static ThreadGroup systemGroup() {
    ThreadGroup group = Thread.currentThread().getThreadGroup();
    while (group.getParent() != null) {
      group = group.getParent();
    }
    return group;
  }

  /** {@code run} was aborted (its first abort): it is served from now on. Allocates nothing. */
  static void aborted(RunControl run) {
    RunControl head;
    do {
      head = ABORTED.get();
      run.nextAborted = head;
    } while (!ABORTED.compareAndSet(head, run));
    Worker w = active;
    if (w != null) {
      LockSupport.unpark(w);
    }
    // The spare, parked at rest, watches from now on.
    Worker s = spare;
    if (s != null) {
      LockSupport.unpark(s);
    }
  }

  /** {@code run} is over: off the list now (a pass under way on it stops at its next session). */
  static void over(RunControl run) {
    synchronized (LOCK) {
      unlink(run);
      if (ABORTED.get() == null) {
        Worker s = spare;
        if (s != null) {
          LockSupport.unpark(s);
        }
      }
    }
  }

  /**
   * Whether the cancel pass running on this thread goes on to its next session: false for a
   * thread here that is no longer the active one (it stalled, and the spare took over), true for
   * any other thread. Allocates nothing.
   */
  static boolean passGoesOn() {
    Thread self = Thread.currentThread();
    if (self == active) {
      progress++;
      if (spare == null) {
        // After a takeover: the next spare, best effort, before each session of the pass.
        makeSpare();
      }
      return true;
    }
    return !(self instanceof Worker);
  }

  /** Whether {@code t} is this JVM's active thread or its spare, with nothing to serve (for tests). */
  static boolean isIdle(Thread t) {
    return (t == active || t == spare) && ABORTED.get() == null && PASSER.get() == null;
  }

  /** Takes {@code run} off the list if it is on it; under LOCK. */
  private static void unlink(RunControl run) {
    RunControl head = ABORTED.get();
    if (head == run && ABORTED.compareAndSet(run, run.nextAborted)) {
      return;
    }
    // Pushes only ever come in front: the run is behind the head.
    for (RunControl p = ABORTED.get(); p != null; p = p.nextAborted) {
      if (p.nextAborted == run) {
        p.nextAborted = run.nextAborted;
        return;
      }
    }
  }

  /** One pass over every listed run, on the active thread; true if any is still to be served. */
  private static boolean round(Worker self) {
    boolean any = false;
    for (RunControl run = ABORTED.get(); run != null; run = run.nextAborted) {
      if (active != self) {
        return false;
      }
      if (run.served()) {
        any = true;
        // The pass mark first, then spare read: an ending spare clears spare, then reads the mark
        // and the list (Worker.run), so it stays, or this round sees it gone and makes one.
        passing = run;
        PASSER.set(self);
        progress++;
        try {
          if (spare == null) {
            // Only after a takeover (the first spare is made with the first run): best effort.
            makeSpare();
          }
          run.cancelHere();
        } catch (VirtualMachineError e) {
          // This run's pass met a StackOverflowError, an InternalError (cancelHere passes them on,
          // not the session's): its pass ends here, the runs listed after it are served all the
          // same (the list is newest first: ending the round would starve every older run).
        } finally {
          PASSER.compareAndSet(self, null);
        }
      } else {
        synchronized (LOCK) {
          if (active == self) {
            unlink(run);
          }
        }
      }
    }
    return any;
  }

  /**
   * A spare, best effort: with a run ({@link #start()}), or after a takeover on the active thread
   * before each session of its passes; never on a reporting thread. No room: tried again then.
   */
  private static void makeSpare() {
    if (threads >= MAX_THREADS) {
      // A hint, without the lock: passGoesOn asks before every session of a pass.
      return;
    }
    long refused = spareRefusedAt;
    if (refused != 0L && System.nanoTime() - refused < SPARE_RETRY_NANOS) {
      // The last try found no room (a full heap: each try costs full collections, about a second,
      // which before every session of a pass left the pass barely moving): not again so soon.
      return;
    }
    synchronized (LOCK) {
      if (spare != null || threads >= MAX_THREADS) {
        return;
      }
    }
    Worker w;
    try {
      w = newWorker();
    } catch (OutOfMemoryError | RuntimeException e) {
      spareRefused();
      return;
    }
    synchronized (LOCK) {
      if (spare != null || threads >= MAX_THREADS) {
        return;
      }
      spare = w;
      threads++;
    }
    boolean started = false;
    try {
      w.start();
      started = true;
    } catch (OutOfMemoryError | RuntimeException e) {
      // No thread to be had ("unable to create native thread"): again later.
    } finally {
      if (!started) {
        spareRefused();
        synchronized (LOCK) {
          spare = null;
          threads--;
        }
      } else {
        spareRefusedAt = 0L;
      }
    }
  }

  /** A spare could not be made now: the passes try again only {@link #SPARE_RETRY_NANOS} later. */
  private static void spareRefused() {
    long now = System.nanoTime();
    spareRefusedAt = now == 0L ? 1L : now;
  }

  /**
   * The spare's watch: true once it has taken the work over from a stalled active thread; false
   * when no aborted run is left and no pass is under way (the thread then ends). A pass under way
   * with no run left is one stalled in the close of a run that is over: the spare stays and takes
   * over, or the next abort would find no thread to serve it.
   */
  private static boolean watch(Worker self) {
    long seen = progress;
    int still = 0;
    RunControl seenOn = null;
    long seenAt = 0L;
    for (;;) {
      if (ABORTED.get() == null && PASSER.get() == null) {
        return false;
      }
      // An interrupt (a close that restored one it got) would make every park return at once.
      Thread.interrupted();
      LockSupport.parkNanos(LOCK, POLL_NANOS);
      looks++;
      long now = progress;
      Thread passer = PASSER.get();
      RunControl run = passing;
      if (passer != null && passer == active && now == seen && run != null) {
        if (run != seenOn) {
          // The first look at this pass without progress: its clock starts here.
          seenOn = run;
          seenAt = run.nanoTime();
          still = 0;
        }
        boolean notRunning = passer.getState() != RUNNING;
        still = notRunning ? still + 1 : 0;
        if (still >= STALLED_LOOKS || run.nanoTime() - seenAt >= STALLED_NANOS) {
          synchronized (LOCK) {
            if (spare == self) {
              spare = null;
              active = self;
              return true;
            }
          }
          return false;
        }
      } else {
        still = 0;
        seen = now;
        seenOn = null;
      }
    }
  }

  /** A thread here: the active one's rounds, or the spare's watch. */
  private static final class Worker extends Thread {
    Worker() {
      // See newWorker(): the system group, no inherited thread-locals, no context loader, normal
      // priority (a thread's priority and group are otherwise its maker's).
      super(systemGroup(), null, THREAD_NAME, 0L, false);
      setDaemon(true);
      setPriority(NORM_PRIORITY);
      setContextClassLoader(null);
    }

    @Override
    public void run() {
      for (;;) {
        try {
          if (!step()) {
            return;
          }
        } catch (Throwable t) {
          // Whatever escaped (an OutOfMemoryError in a full heap, where even a look can fail, a
          // StackOverflowError): this thread serves every run of the JVM and must not die of
          // it (a canceller found dead of one kept its last run reachable); a poll later, again.
          LockSupport.parkNanos(LOCK, POLL_NANOS);
        }
      }
    }

    /** One turn of this thread's loop: a round or a watch; false once it is to end. */
    private boolean step() {
      // Nothing here is interrupted on purpose: an interrupt left by a close (one that restored an
      // interrupt it got) would make every park below return at once, and the thread spin.
      Thread.interrupted();
      if (active == null) {
        synchronized (LOCK) {
          if (active == null && spare == this) {
            // The active thread could not be made (start(): no room) but this spare could: it
            // serves, or no abort would ever be cancelled.
            spare = null;
            active = this;
          }
        }
      }
      if (active == this) {
        boolean any = true;
        try {
          any = round(this);
        } catch (Throwable t) {
          // What escaped a pass (a StackOverflowError, say): the next poll passes again.
        }
        if (active != this) {
          return true;
        }
        if (any) {
          LockSupport.parkNanos(LOCK, POLL_NANOS);
        } else {
          // Nothing to serve: the last run passed is not kept reachable until the next abort;
          // nor is a pass mark left by a thread stalled in a close that this one took over from
          // (before any pass of its own: the run was over), which would have the spare look at
          // it every poll, and this thread count as busy, for as long as that close lasts.
          passing = null;
          Thread mark = PASSER.get();
          if (mark != null && mark != this) {
            PASSER.compareAndSet(mark, null);
          }
          LockSupport.park(LOCK);
        }
        return true;
      }
      boolean watching;
      synchronized (LOCK) {
        watching = spare == this;
        if (!watching && spare == null) {
          // A stalled thread back from its close, and no spare: it is the spare.
          spare = this;
          watching = true;
        }
        if (!watching) {
          threads--;
          return false;
        }
      }
      if (!watch(this)) {
        // Nothing to watch: the spare stays, parked, until an abort's push unparks it
        // (aborted(): push, then unpark spare; watch: read the list, then park. The park's
        // permit keeps an unpark between the two). It never ends, so it is never lost.
        if (spare == this) {
          LockSupport.park(LOCK);
        }
      }
      return true;
    }
  }
}
