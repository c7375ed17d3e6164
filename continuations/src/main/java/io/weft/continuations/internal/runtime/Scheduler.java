package io.weft.continuations.internal.runtime;

import io.weft.continuations.runtime.spi.WaitTimeouts;
import io.weft.continuations.spi.LoopThread;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.spi.TimedRegistration;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.commons.javaflow.api.Continuation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ready queue and its k worker threads, plus one {@link WaitTimer} thread for wait
 * timeouts. One scheduler runs one batch of fibers and is then shut down: {@link #shutdown}
 * leaves no thread behind.
 *
 * <p>Where a woken fiber runs: when the scheduler resumes on event loops (the default) and the
 * wake-up runs on a transport's {@link LoopThread} that is not already running a fiber, the
 * fiber runs right there, inside the wake-up, as a Netty handler runs on its event loop: no queue,
 * no other thread woken. Every other wake-up (a timer, one from a worker or from inside another
 * fiber) puts the fiber on the ready queue; once the run is cancelled, every wake-up goes on the
 * stranded list instead (no queue node: see {@link #enqueue}). The first fibers of a batch start on
 * the workers; one admitted as another ends on an event loop starts on that loop, right after the
 * one that ended (see {@link #done}).
 *
 * <p>The ready queue is lock-free. A worker that finds it empty parks, after spinning
 * {@value #SPINS_PROPERTY} times if that system property is set (default 0: no spin); making a
 * fiber ready unparks a worker only when one is parked, so a wake-up from a running session on
 * a busy worker is a queue append and nothing else.
 */
public final class Scheduler {
  /** System property: how many times an idle worker polls the queue before it parks. */
  public static final String SPINS_PROPERTY = "io.weft.continuations.workerSpins";
  private static final int SPINS = Math.max(0, Integer.getInteger(SPINS_PROPERTY, 0));
  private static final Logger log = LoggerFactory.getLogger(Scheduler.class);

  private final ConcurrentLinkedQueue<Fiber> ready = new ConcurrentLinkedQueue<>();
  /**
   * Ready fibers that found no heap for a queue node, and a cancelled run's wake-ups (see
   * {@link #enqueue}), oldest first, linked through {@link Fiber#strandedNext};
   * written under {@link #strandedLock}. A monitor, not an atomic: this path runs only when the
   * heap is full, and an atomic's first use (linking its VarHandle call) allocates.
   */
  private volatile Fiber stranded;
  /** The last fiber of {@link #stranded}'s list, null when it is empty; under {@link #strandedLock}. */
  private Fiber strandedTail;
  /** How many times a fiber was put on the stranded list; under {@link #strandedLock}. For tests. */
  private long strandings;
  private final Object strandedLock = new Object();
  /** Where a failure was met, for the report; not constants, so that their literals are made as the class loads. */
  private static final String WORKER;
  private static final String IN_PLACE;
  private static final String ADMITTING;

  static {
    WORKER = "a scheduler worker";
    IN_PLACE = "a session resumed in place";
    ADMITTING = "the scheduler admitting a session";
    // Links the stamp's call as the class loads, not first on a heap's-end path.
    HeapExhaustion.stamp();
  }
  /** The timer thread; null when the caller drives this scheduler (see {@link #driven}). */
  private final WaitTimer timer;
  /** The caller's timer when it drives this scheduler; null otherwise. */
  private final WaitTimeouts timeouts;
  /** The clock the run's waits are timed by (see {@link #clock()}). */
  private final Ticker clock;
  /** The ready queue of a driven scheduler, on its one thread: no node per wake-up. Null otherwise. */
  private final java.util.ArrayDeque<Fiber> drivenReady;
  private final Worker[] workers;
  /** Workers that are parked, or about to; counted so that enqueue can skip the search. */
  private final AtomicInteger idle = new AtomicInteger();
  /**
   * The batch {@link #runAll} runs, admitted in list order: a fiber is admitted when it takes
   * the next index, at the start (up to maxInFlight of them) or when a fiber ends, so at most
   * maxInFlight are in flight. No lock and no set of live fibers on a session's end.
   */
  private volatile List<Fiber> batch = List.of();
  private final AtomicInteger nextToAdmit = new AtomicInteger();
  private final int maxInFlight;
  private final boolean onEventLoops;
  /** The context class loader of the thread that made this scheduler: the workers' too. */
  private final ClassLoader contextLoader;
  /** The inheritable thread-local values of the thread that made this scheduler, for the sessions. */
  private final InheritedValues inherited = new InheritedValues();
  private volatile CarriedContexts contexts = CarriedContexts.NONE;
  private CountDownLatch allDone = new CountDownLatch(0);
  /** What {@link #runAll} was told to run once its batch has ended; set before the batch starts. */
  private Runnable whenAllEnded;
  /** Set by the one thread that runs {@link #whenAllEnded}; made with the batch, so setting it needs no heap. */
  private AtomicBoolean endTold = new AtomicBoolean();
  private volatile boolean cancelled;
  private volatile boolean stopping;
  /**
   * How many more suspends walk their stack for frames that were not rewritten; raised for good
   * once a session of this run swallowed a suspend. Racy on purpose: a few more or fewer is fine.
   */
  private volatile int probes = PROBES;
  private static final int PROBES = 64;

  /** A scheduler that resumes fibers on event loops where it can (see the class javadoc). */
  public Scheduler(int workerCount, int maxInFlight, String name) {
    this(workerCount, maxInFlight, name, true);
  }

  /**
   * @param onEventLoops true to run a fiber woken on an {@link LoopThread} on that thread;
   *     false to run every fiber on the workers
   */
  public Scheduler(int workerCount, int maxInFlight, String name, boolean onEventLoops) {
    this(workerCount, maxInFlight, name, onEventLoops, Ticker.system());
  }

  /**
   * @param onEventLoops true to run a fiber woken on an {@link LoopThread} on that thread;
   *     false to run every fiber on the workers
   * @param clock the clock of the wait timer: the run's one clock, its connector's
   */
  public Scheduler(int workerCount, int maxInFlight, String name, boolean onEventLoops, Ticker clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.onEventLoops = onEventLoops;
    this.contextLoader = Thread.currentThread().getContextClassLoader();
    if (workerCount < 1) {
      throw new IllegalArgumentException("workers < 1: " + workerCount);
    }
    this.maxInFlight = maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight;
    timer = new WaitTimer(name + "-timer", clock);
    timeouts = null;
    drivenReady = null;
    workers = new Worker[workerCount];
    for (int i = 0; i < workerCount; i++) {
      workers[i] = new Worker(name + "-worker-" + i);
    }
    for (Worker worker : workers) {
      worker.thread.start();
    }
  }

  private Scheduler(WaitTimeouts timeouts) {
    // The caller's timer reads its own clock; where that timer is a Ticker too (the simulation's
    // World), it is the clock of this scheduler's waits.
    this.clock = timeouts instanceof Ticker ? (Ticker) timeouts : Ticker.system();
    this.onEventLoops = false;
    this.contextLoader = Thread.currentThread().getContextClassLoader();
    this.maxInFlight = Integer.MAX_VALUE;
    this.timer = null;
    this.timeouts = timeouts;
    this.drivenReady = new java.util.ArrayDeque<>();
    this.workers = new Worker[0];
  }

  /**
   * A scheduler with no thread of its own: the caller starts fibers with {@link #start}, runs
   * them one slice at a time with {@link #pollReady()} and {@link #runSlice}, and ends their
   * waits' timeouts through {@code timeouts}, all on its one thread. What a deterministic simulation needs: the ready
   * queue is FIFO, so the order of the slices follows only from the order of the wake-ups.
   *
   * @param timeouts the caller's timer
   * @return a scheduler run by the calling thread
   */
  public static Scheduler driven(WaitTimeouts timeouts) {
    return new Scheduler(java.util.Objects.requireNonNull(timeouts, "timeouts"));
  }

  /**
   * A driven scheduler: admits {@code fiber}, outside any batch, to run {@code frame}; it is
   * ready at once.
   */
  public void start(Fiber fiber, Runnable frame) {
    fiber.frame(frame);
    fiber.wake0();
  }

  /**
   * A driven scheduler: takes the next ready fiber off the queue, for the caller to
   * {@link #runSlice} it (or to hold it back and run it after others: the caller owns it now).
   *
   * @return the fiber, or null when none is ready
   */
  public Fiber pollReady() {
    return drivenReady.poll();
  }

  /**
   * A driven scheduler: runs a fiber taken with {@link #pollReady()} on the calling thread, until
   * it suspends or ends.
   */
  public void runSlice(Fiber fiber) {
    runHere(fiber);
  }

  /**
   * A driven scheduler: runs {@code loop} (which runs the slices) on the calling thread inside an
   * outer continuation that never suspends, as a worker runs its loop: a stack recorder is then
   * always registered on the thread, and each fiber's resume swaps the value of JavaFlow's
   * thread-local instead of adding and removing its entry (an allocation, a weak reference and a
   * hash-table clean-up per resume). What {@code loop} throws is thrown here.
   */
  public void drive(Runnable loop) {
    Throwable[] thrown = new Throwable[1];
    Continuation.startWith(() -> {
      try {
        loop.run();
      } catch (RuntimeException | Error e) {
        thrown[0] = e;
      }
    }, this, true);
    Throwable t = thrown[0];
    if (t instanceof RuntimeException) {
      throw (RuntimeException) t;
    }
    if (t instanceof Error) {
      throw (Error) t;
    }
  }

  /** One worker thread and whether it is parked; only its own thread sets {@code parked}. */
  private final class Worker implements Runnable {
    final Thread thread;
    final AtomicBoolean parked = new AtomicBoolean();

    Worker(String name) {
      thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      // The loop runs inside an outer continuation of its own, which never suspends, so that a
      // stack recorder is always registered on this thread: each resume then swaps the value of
      // JavaFlow's thread-local instead of adding and removing its entry (an allocation, a weak
      // reference and a hash-table clean-up per resume). Only fibers' code sees that recorder
      // as current, and their own recorder is current then.
      Continuation.startWith(this::loop, Scheduler.this, true);
    }

    private void loop() {
      while (!stopping) {
        Fiber fiber = poll();
        if (fiber == null) {
          fiber = idle(this);
          if (fiber == null) {
            return;
          }
        }
        try {
          fiber.runSlice();
        } catch (Throwable t) {
          escaped(fiber, t, WORKER);
        }
      }
    }
  }

  /** Waits for a ready fiber; null once stopping. */
  private Fiber idle(Worker worker) {
    for (int i = 0; i < SPINS; i++) {
      Thread.onSpinWait();
      Fiber fiber = poll();
      if (fiber != null || stopping) {
        return fiber;
      }
    }
    for (;;) {
      worker.parked.set(true);
      idle.incrementAndGet();
      // Parked first, then look: an enqueue either sees this worker parked or is seen here.
      Fiber fiber = poll();
      if (fiber == null && !stopping) {
        do {
          LockSupport.park(this);
        } while (worker.parked.get() && !stopping);
        fiber = poll();
      }
      if (worker.parked.compareAndSet(true, false)) {
        idle.decrementAndGet();
      } // else an enqueue claimed this worker and counted it out; its unpark is spare
      if (fiber != null || stopping) {
        return stopping ? requeue(fiber) : fiber;
      }
    }
  }

  /** The next ready fiber: from the ready queue, else from the stranded list; null if none. Package-private for tests. */
  Fiber poll() {
    Fiber fiber = ready.poll();
    if (fiber != null || stranded == null) {
      return fiber;
    }
    Fiber first;
    synchronized (strandedLock) {
      first = stranded;
      if (first == null) {
        return null;
      }
      if (cancelled) {
        // A cancelled run's wake-ups stay on this list (see enqueue): one at a time, so that
        // taking n of them costs n steps, not n * n re-strandings.
        Fiber next = first.strandedNext;
        stranded = next;
        if (next == null) {
          strandedTail = null;
        }
        first.strandedNext = null;
        return first;
      }
      stranded = null;
      strandedTail = null;
    }
    for (Fiber f = first.strandedNext; f != null; ) {
      Fiber next = f.strandedNext;
      f.strandedNext = null;
      enqueue(f);
      f = next;
    }
    first.strandedNext = null;
    return first;
  }

  /**
   * Appends {@code fiber} to the stranded list: first in, first out, as the ready queue, so that
   * a cancelled run's woken fibers (which may hold the heap) run before the fibers admitted after
   * them (which hold nothing yet).
   */
  private void strand(Fiber fiber) {
    synchronized (strandedLock) {
      strandings++;
      fiber.strandedNext = null;
      Fiber tail = strandedTail;
      if (tail == null) {
        stranded = fiber;
      } else {
        tail.strandedNext = fiber;
      }
      strandedTail = fiber;
    }
  }

  /** How many times a fiber was put on the stranded list. For tests. */
  long strandings() {
    synchronized (strandedLock) {
      return strandings;
    }
  }

  private Fiber requeue(Fiber fiber) {
    if (fiber != null) {
      ready.add(fiber);
    }
    return null;
  }

  /**
   * Starts the fibers, at most maxInFlight at a time, and returns a latch for their end. Call
   * once per scheduler. {@code allEnded} runs once, after the latch is at zero, on a thread that
   * counted one of the last fibers: a waiter that looks at the latch's count instead of waiting on
   * it is woken by it. It must be quick, never block and allocate nothing: it may run when the
   * heap has run out. An {@code OutOfMemoryError} it throws is dropped (the waiter must look again
   * on its own, as a parked one does when its park times out).
   */
  public CountDownLatch runAll(List<Fiber> fibers, java.util.function.Function<Fiber, Runnable> frames,
      Runnable allEnded) {
    for (Fiber fiber : fibers) {
      fiber.frame(frames.apply(fiber));
    }
    whenAllEnded = allEnded;
    endTold = new AtomicBoolean();
    allDone = new CountDownLatch(fibers.size());
    batch = fibers;
    // Each ending fiber admits one more, so however these interleave with ends, no more than
    // maxInFlight are ever in flight.
    for (int i = 0; i < maxInFlight; i++) {
      Fiber fiber = takeNext();
      if (fiber == null) {
        break;
      }
      fiber.wake0();
    }
    return allDone;
  }

  /** How many fibers of the batch were never admitted (never started). Allocates nothing. */
  public int notAdmitted() {
    List<Fiber> fibers = batch;
    return Math.max(0, fibers.size() - nextToAdmit.get());
  }

  /** The next fiber of the batch to admit, cancelled if the run is; null when none is left. */
  private Fiber takeNext() {
    List<Fiber> fibers = batch;
    if (nextToAdmit.get() >= fibers.size()) {
      return null;
    }
    int i = nextToAdmit.getAndIncrement();
    if (i >= fibers.size()) {
      return null;
    }
    Fiber fiber = fibers.get(i);
    // Admitted: if the run gives up on it before it ends, it was left behind.
    fiber.started();
    if (cancelled) {
      fiber.cancel();
    }
    return fiber;
  }

  /**
   * Runs a fiber that the calling thread has just made ready (PARKED to READY): here, if this is
   * an event loop free to run it, else on a worker. The caller owns the run either way.
   */
  void ready(Fiber fiber) {
    if (onEventLoops) {
      LoopThread loop = LoopThread.current();
      if (loop != null && loop.enterSession()) {
        // The session sees the context class loader it would see on a worker.
        Thread thread = Thread.currentThread();
        ClassLoader ioContext = thread.getContextClassLoader();
        thread.setContextClassLoader(contextLoader);
        try {
          // A fiber that ends here hands this thread the one it admitted (see done): it starts
          // here too, after, never nested inside the one that ended.
          for (Fiber next = fiber; next != null; next = next.takeSuccessor()) {
            runHere(next);
          }
        } finally {
          thread.setContextClassLoader(ioContext);
          loop.exitSession();
        }
        return;
      }
    }
    enqueue(fiber);
  }

  private static void runHere(Fiber fiber) {
    try {
      fiber.runSlice();
    } catch (Throwable t) {
      escaped(fiber, t, IN_PLACE);
    }
  }

  /**
   * What escaped a fiber's slice: logged, unless the heap has no room for that, in which case it
   * is the heap running out, and the runs under way end (see {@link HeapExhaustion}); either way
   * the thread goes on serving the other fibers.
   */
  private static void escaped(Fiber fiber, Throwable t, String where) {
    fiber.scheduler().reportHeap(t, where);
    try {
      log.error("fiber {} escaped its frame", fiber.index(), t);
    } catch (OutOfMemoryError e) {
      // No room to say it: the report above has said what matters.
    }
  }

  /**
   * Reports {@code t}, met by one of this scheduler's threads or fibers, to {@link HeapExhaustion},
   * unless this scheduler's run is over (it is shutting down): a late error of an abandoned fiber
   * or worker is not the runs' under way now, and must not abort them (one of their own threads,
   * or the watches, meets a real exhaustion then). Allocates nothing of its own.
   *
   * @return whether {@code t} says the heap ran out
   */
  boolean reportHeap(Throwable t, String where) {
    // Stamped before the look: a run that begins after this scheduler's run has stopped does not
    // hear the report however late it comes (a full collection can stop this thread for seconds
    // between the look and the report).
    long metAt = HeapExhaustion.stamp();
    if (stopping) {
      return HeapExhaustion.isHeapExhausted(t);
    }
    return HeapExhaustion.report(t, where, metAt);
  }

  /** Makes {@code fiber} ready; wakes a parked worker, if there is one, to run it. */
  void enqueue(Fiber fiber) {
    if (drivenReady != null) {
      drivenReady.addLast(fiber);
      return;
    }
    if (cancelled) {
      // A cancelled run's wake-ups (every suspended fiber at once, see cancelWaits) take no
      // queue node: the run may have been cancelled because the heap ran out, and in a full heap
      // each node would cost the JVM full collections before it failed (seconds per fiber).
      strand(fiber);
    } else {
      try {
        ready.add(fiber);
      } catch (OutOfMemoryError e) {
        // No heap for a queue node: the fiber waits on a list threaded through itself instead,
        // which a worker takes whole; a fiber lost here would never run, and its run never end.
        strand(fiber);
      }
    }
    if (idle.get() > 0) {
      for (Worker worker : workers) {
        if (worker.parked.get() && worker.parked.compareAndSet(true, false)) {
          idle.decrementAndGet();
          LockSupport.unpark(worker.thread);
          return;
        }
      }
    }
  }

  /** True while suspends should be checked frame by frame (see {@link FrameChecker}). */
  boolean probing() {
    int left = probes;
    if (left <= 0) {
      return false;
    }
    if (left != Integer.MAX_VALUE) {
      probes = left - 1;
    }
    return true;
  }

  void probeEverySuspend() {
    probes = Integer.MAX_VALUE;
  }

  WaitTimer timer() {
    return timer;
  }

  /**
   * The clock this scheduler's timed waits are measured on: its wait timer's, which the runner
   * makes its connector's ({@link io.weft.transport.spi.Clocked}); a driven scheduler's
   * {@link WaitTimeouts} where that is a {@link Ticker}; the system's otherwise. What a wait that
   * computes its timeout from a deadline must read (see {@link Fiber#ticker()}).
   */
  public Ticker clock() {
    return clock;
  }

  /** True for a {@link #driven} scheduler: its fibers run only on the one thread that drives it. */
  boolean isDriven() {
    return drivenReady != null;
  }

  /**
   * Arms {@code wait}'s timeout: counted from the reading of the timer's clock that a {@link
   * TimedRegistration} worked it out on (see {@link WaitTimer#armFrom}), or from the clock now. A
   * driven scheduler's {@link WaitTimeouts} time it from their own clock: the one thread that
   * drives them also runs the session, so the clock cannot move between the two.
   */
  void armTimeout(Fiber fiber, Wait wait, WaitRegistration registration, long timeoutNanos) {
    if (timeouts != null) {
      timeouts.arm(wait, timeoutNanos);
    } else if (registration instanceof TimedRegistration) {
      TimedRegistration timed = (TimedRegistration) registration;
      // timedOn() first: timedFrom() spends the reading (null after it: from the clock now).
      Ticker readOn = timed.timedOn();
      long from = timed.timedFrom();
      timer.armFrom(fiber.timeoutSlot(), wait, readOn, from, timeoutNanos);
    } else {
      timer.arm(fiber.timeoutSlot(), wait, timeoutNanos);
    }
  }

  /** {@code slot}'s fiber has ended: the timer lets go of it. */
  void retireTimeouts(WaitTimer.Slot slot) {
    if (timer != null) {
      timer.retire(slot);
    }
  }

  /**
   * {@code fiber} has ended and its connection is closed, as its transport reported (see
   * SessionContext's holds): admits the next fiber of the batch. Called on the thread that ran
   * the fiber's last slice ({@code onItsThread}) when the close came first, as it does when it
   * completes inside the close; else on the thread that reported the close. Ended on an event
   * loop (it ran there, woken where its bytes arrived), the next one, if its connector suspends,
   * starts on that loop right after it, as a Netty client opens its next channel from its event
   * loop: no worker is woken for it. Anywhere else it goes to the workers.
   */
  void done(Fiber fiber, boolean onItsThread) {
    countEnds(fiber, onItsThread);
    // Outside countEnds' catch: a hook whose wake-up found no heap must not be taken for a failed
    // admission and run again.
    Runnable allEnded = whenAllEnded;
    if (allEnded != null && allDone.getCount() == 0L && endTold.compareAndSet(false, true)) {
      try {
        allEnded.run();
      } catch (OutOfMemoryError e) {
        // Its waiter parks for a bounded time and looks at the count again.
      }
    }
  }

  /** Counts fiber, and any fiber it could not admit for want of heap, as ended. */
  private void countEnds(Fiber fiber, boolean onItsThread) {
    // Each turn counts one fiber as ended: fiber, then any that could not be queued.
    for (;;) {
      Fiber next = takeNext();
      try {
        if (next != null) {
          // Only a session whose connector suspends: a blocking connect must never run on an event
          // loop, where it is refused (and a run with a blocking connector starts on the workers).
          // Only on the thread that ran fiber: that thread's loop in ready() takes the successor.
          LoopThread loop = onEventLoops && onItsThread ? LoopThread.current() : null;
          if (loop != null && next.connector() instanceof SuspendingConnector
              && loop.isRunningSession() && next.readyOnThisThread()) {
            fiber.successor(next);
          } else {
            next.wake0();
          }
        }
        allDone.countDown();
        return;
      } catch (OutOfMemoryError e) {
        // The heap had no room to queue the next fiber (it is in no queue, and never will be):
        // it ends here, failed with the error, and admits the one after it in its turn, so that
        // the run's count of ended fibers stays right. A successor stays fiber's: the
        // thread that ran it is the one that looks for one.
        allDone.countDown();
        if (next == null) {
          return;
        }
        next.failed(e);
        reportHeap(e, ADMITTING);
      }
    }
  }

  /**
   * Cancels every fiber, running, parked or not yet started; a fiber that has ended keeps its
   * outcome.
   */
  public void cancel() {
    cancel(null);
  }

  /**
   * As {@link #cancel()}, asking {@code goesOn} (null: always) once before the wake pass and then
   * before each fiber's close: a pass whose run is over, or whose thread was replaced after it
   * stalled in a close, stops there.
   */
  public void cancel(java.util.function.BooleanSupplier goesOn) {
    cancelled = true;
    // Asked once for the wake pass, which asks no one per fiber: a pass whose run is over, or
    // whose thread was replaced, wakes nothing (its fibers have ended, or the thread that took
    // over wakes them). On the canceller that took over and has no spare yet, this first ask
    // also tries to make one (AbortCancels.passGoesOn), before the wake pass: at most once per
    // 5 s, and only after a takeover.
    if (goesOn != null && !goesOn.getAsBoolean()) {
      return;
    }
    // Every suspended fiber woken first, then the closes, which may be slow (see cancelWaits).
    cancelWaits(batch);
    // Indexed, no iterator, one fiber's close failing sparing no other: see SessionCancels.
    cancels.cancel(batch, goesOn);
  }

  /** The cancels of this scheduler's fibers (one run's). */
  private final SessionCancels cancels = new SessionCancels();

  /**
   * The first step of a cancel: every fiber of {@code fibers} suspended on a wait is woken to its
   * cancel ({@link Fiber#cancelWait}), before any transport is closed; the woken fibers go on the
   * stranded list, not the ready queue (see {@link #enqueue}). Allocates nothing itself and never
   * waits but on that list's monitor (on an event loop free to run a session the woken session
   * runs there, in place, see {@link #ready}), so it asks whether to go on only once, before it starts
   * ({@link #cancel(java.util.function.BooleanSupplier)}): a close can take seconds in a full heap, and a
   * fiber woken only by its own close (after the library's part of it) would hold what its stack
   * holds until then; woken here, each one resumes on the workers, unwinds its session's code and
   * closes its own transport. Indexed, no iterator.
   */
  private static void cancelWaits(List<Fiber> fibers) {
    for (int i = 0; i < fibers.size(); i++) {
      try {
        fibers.get(i).cancelWait();
      } catch (OutOfMemoryError e) {
        // Nothing here allocates (a wake-up that finds no heap for a queue node strands the
        // fiber instead); the close pass below cancels it again all the same.
      }
    }
  }

  /** Stops the workers and the timer and waits for them to end. */
  public void shutdown(long timeoutMillis) throws InterruptedException {
    stopping = true;
    inherited.close();
    for (Worker worker : workers) {
      LockSupport.unpark(worker.thread);
    }
    if (timer == null) {
      return;
    }
    timer.shutdown();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    for (Worker worker : workers) {
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      worker.thread.join(Math.max(1L, left));
      if (worker.thread.isAlive()) {
        worker.thread.interrupt();
      }
    }
    timer.awaitTermination(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  InheritedValues inherited() {
    return inherited;
  }

  /** Carries {@code contexts} across the waits of the sessions this scheduler runs; before {@link #runAll}. */
  public void carry(CarriedContexts contexts) {
    this.contexts = contexts;
  }

  CarriedContexts contexts() {
    return contexts;
  }

  /** True once every worker and the timer thread has ended. */
  public boolean isTerminated() {
    for (Worker worker : workers) {
      if (worker.thread.isAlive()) {
        return false;
      }
    }
    return timer == null || timer.isTerminated();
  }
}
