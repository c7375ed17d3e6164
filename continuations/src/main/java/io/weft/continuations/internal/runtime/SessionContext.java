package io.weft.continuations.internal.runtime;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.ReportsArrival;
import io.weft.transport.spi.ReportsClose;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * What one session needs and what it ended with; the same in every mode. {@link SessionFrame}
 * reads it and records the outcome in it.
 */
public class SessionContext {
  private final int index;
  private final Connector connector;
  private final SocketAddress address;
  private final Timeout timeout;
  private final SessionTask<?> task;
  private ConnectPacing.Pacer pacer;
  private ConnectWindow.Window window;
  /** This session's place in the connect window while it holds one; only its own frame writes it. */
  private ConnectWindow.Slot slot;
  private ConnectWindow.Waiter waiter;
  /** When this session's connect began (System.nanoTime), or Long.MIN_VALUE if it did not connect. */
  private volatile long connectStartNanos = Long.MIN_VALUE;
  private volatile Transport transport;
  volatile boolean cancelled;
  private volatile boolean finished;
  /**
   * How many times the session frame's close ran out of heap and kept the transport again
   * ({@link #closeRanOutOfHeap}); guarded by this for writes, so that a cancel whose close came
   * before such a keep never forgets the transport after it.
   */
  private volatile int keptAfterFailedClose;
  /** Set when a cancel's close threw, not for want of heap, while the session still held its transport; guarded by this. */
  private boolean cancelCloseFailedOtherwise;
  /** Set as the session frame begins: a session never started is not left behind, only cancelled. */
  private volatile boolean started;
  /**
   * Set when the run gave up on this session after an abort ({@link #leftBehind}): the outcome the
   * run returned is final, and nothing this session's thread or fiber does later changes it (nor
   * adds to its failure). Outcome fields are written under this context's monitor, first writer
   * wins.
   */
  private volatile boolean sealed;
  private Object value;
  private Throwable failure;
  private static final AtomicIntegerFieldUpdater<SessionContext> HOLDS =
      AtomicIntegerFieldUpdater.newUpdater(SessionContext.class, "holds");
  private static final AtomicIntegerFieldUpdater<SessionContext> CLOSE_HOLD =
      AtomicIntegerFieldUpdater.newUpdater(SessionContext.class, "closeHold");
  private static final AtomicIntegerFieldUpdater<SessionContext> CANCEL_CLOSING =
      AtomicIntegerFieldUpdater.newUpdater(SessionContext.class, "cancelClosing");
  /**
   * 1 while a {@link #cancel} is in the transport's close: another cancel then does not close it
   * too, so that a close that never returns holds one canceller, not every one that comes.
   */
  private volatile int cancelClosing;
  /**
   * What still holds this session's place among the run's {@code maxInFlight}: its task, and,
   * over a transport that reports its close ({@link ReportsClose}), its connection until that
   * close is reported. A server counts connections, and an I/O library may close a socket
   * after {@code close()} returns: freeing the place at the task's end would let the next
   * session's connect reach the server first. An updater, not a VarHandle: the task's end may
   * come when the heap has run out, and a VarHandle's first call may allocate.
   */
  private volatile int holds = 1;
  /**
   * 1 while the connection's close holds the place: released once, by the close's report or by
   * a watcher's registration that failed, whichever comes first (a transport may have run or
   * kept the watcher before it threw).
   */
  private volatile int closeHold;
  /** What frees the place when the close is reported after the task's end; null for nothing. */
  private Runnable freedByClose;

  /** What the made-ahead failure of a session cancelled with no room says ({@link #cancelledWithNoRoom()}). */
  public static final String CANCELLED_WITH_NO_ROOM = "cancelled (the heap had no room then for an exception of its"
      + " own; the sessions cancelled so share this one)";
  /**
   * The failure of this session if it is cancelled before it connects with no room for one of its
   * own, made with its run or scheduler; null for none (a context made outside both). Never made
   * here, statically: its stack trace would keep the classes, and so the loaders, of whatever
   * first loaded this class (a run's caller) reachable for the JVM's life.
   */
  private SessionCancelledException cancelledWithNoRoom;

  public SessionContext(int index, Connector connector, SocketAddress address, Timeout timeout, SessionTask<?> task) {
    this.index = index;
    this.connector = connector;
    this.address = address;
    this.timeout = timeout;
    this.task = task;
  }

  /** Never wakes: waiting on it sleeps for the wait's timeout. */
  public static final WaitRegistration NEVER = new WaitRegistration() {
    @Override
    public void register(Runnable wakeUp) {
      // Nothing wakes a pacing wait but its own timeout.
    }
  };

  /**
   * The failure, made ahead (with the run), of this session if it is cancelled before it connects
   * and the heap has no room then for a {@link SessionCancelledException} of its own; set before
   * the session starts. Never the {@link OutOfMemoryError} itself: the session did not meet it.
   */
  public void cancelledWithNoRoom(SessionCancelledException madeAhead) {
    this.cancelledWithNoRoom = madeAhead;
  }

  /** What {@link #cancelledWithNoRoom(SessionCancelledException)} set, or null. */
  public SessionCancelledException cancelledWithNoRoom() {
    return cancelledWithNoRoom;
  }

  /** Paces this session's connect with the run's other sessions'; null for no pacing. */
  public void pacer(ConnectPacing.Pacer pacer) {
    this.pacer = pacer;
  }

  /** Reserves this session's turn to connect: how long to wait first, in nanoseconds. */
  public long connectWaitNanos() {
    return pacer == null ? 0L : pacer.reserve();
  }

  /** Bounds this session with the run's others while it is not yet heard from; null for no window. */
  public void window(ConnectWindow.Window window) {
    this.window = window;
  }

  /**
   * Takes this session's place in the run's connect window: true if it holds one now (or there
   * is no window), false if it must wait ({@link #windowWaiter()}, {@link #windowWaitNanos()})
   * and try again. Once it holds one, a waiter it had stops waiting.
   */
  public boolean enterWindow() {
    if (window == null || slot != null) {
      return true;
    }
    slot = window.tryEnter();
    if (slot == null) {
      return false;
    }
    if (waiter != null) {
      waiter.leave();
      waiter = null;
    }
    return true;
  }

  /** What this session waits on for a place in the window (it counts as one that waited, once). */
  public ConnectWindow.Waiter windowWaiter() {
    if (waiter == null) {
      waiter = window.waiter();
    }
    return waiter;
  }

  /** How long this session waits for a place before it tries again, at most; after the wait, see {@link #windowWaited()}. */
  public long windowWaitNanos() {
    return windowWaiter().waitNanos();
  }

  /** This session's wait for a place ended, however. */
  public void windowWaited() {
    if (waiter != null) {
      waiter.waited();
    }
  }

  /**
   * This session no longer needs the connect window: it gives its place back (its connect failed,
   * its task ended) if it still holds one, and stops waiting if it waited (cancelled). Allocates
   * nothing; may wake the next waiting session.
   */
  public void leaveWindow() {
    ConnectWindow.Slot s = slot;
    if (s != null) {
      slot = null;
      s.release();
    }
    ConnectWindow.Waiter w = waiter;
    if (w != null) {
      waiter = null;
      w.leave();
    }
  }

  /**
   * This session's connect failed (not a cancel): it gives its place back, and a growing connect
   * window halves ({@link ConnectWindow.Slot#connectFailed()}).
   */
  public void connectFailed() {
    ConnectWindow.Slot s = slot;
    if (s != null) {
      slot = null;
      s.connectFailed();
    }
  }

  /** The session's connect begins now. */
  public void connecting() {
    ConnectWindow.Slot s = slot;
    if (s != null) {
      // The window's hold bound starts at the connect, not before the pacing turn.
      s.connecting();
    }
    connectStartNanos = System.nanoTime();
  }

  /** When this session's connect began, on System.nanoTime; Long.MIN_VALUE if it never began. */
  public long connectStartNanos() {
    return connectStartNanos;
  }

  private static final String CONTINUATION_DEATH_NAME = "org.apache.commons.javaflow.core.ContinuationDeath";
  /** The engine's stack-unwinding signal's class (package-private in JavaFlow), or null if absent. */
  private static final Class<?> CONTINUATION_DEATH = continuationDeath();

  private static Class<?> continuationDeath() {
    try {
      return Class.forName(CONTINUATION_DEATH_NAME, false, SessionContext.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  static {
    // Resolves, as the class loads, the class entries isContinuationDeath uses (Error,
    // VirtualMachineError; Error.class shares Error's): resolved at their first use instead, a
    // session's failure path in a full heap, they can make the class loader load them, which
    // allocates, and the check threw OutOfMemoryError there (NoRoomReportTest, session cases).
    isContinuationDeath(new OutOfMemoryError());
    isContinuationDeath(new AssertionError());
  }

  /**
   * The class entries {@link #opened} checks and casts to, resolved as the class loads: resolved
   * at a session's first connect in a full heap instead, the resolution may run the class
   * loader, which allocates, and throw OutOfMemoryError out of {@code opened}.
   */
  private static final Class<?>[] OPENED_CHECKS = {ReportsArrival.class, ReportsClose.class};

  /**
   * True for the engine's own stack-unwinding signal, which sessions must let through. Allocates
   * nothing for the errors a session ends with when the heap has run out (a class's name is
   * made on its first call, which may be that moment): the class is compared, and the name only
   * for an error from another copy of the engine.
   */
  public static boolean isContinuationDeath(Throwable t) {
    if (!(t instanceof Error) || t instanceof VirtualMachineError) {
      return false;
    }
    Class<?> c = t.getClass();
    if (c == CONTINUATION_DEATH) {
      return true;
    }
    // The engine's signal extends Error itself: a LinkageError (a class whose initialisation
    // ran out of heap) or an AssertionError is let go without its name, which it may not have
    // made yet.
    if (c.getSuperclass() != Error.class) {
      return false;
    }
    try {
      return c.getName().equals(CONTINUATION_DEATH_NAME);
    } catch (OutOfMemoryError e) {
      // No room to name a class never named before: taken for the session's own error. Only
      // another copy of the engine's signal could be mistaken so, when the heap has run out,
      // and that session then ends FAILED with it in a run that the heap's end aborts anyway.
      return false;
    }
  }

  public int index() {
    return index;
  }

  public Connector connector() {
    return connector;
  }

  public SocketAddress address() {
    return address;
  }

  public Timeout timeout() {
    return timeout;
  }

  public SessionTask<?> task() {
    return task;
  }

  /**
   * The session's transport is open; a cancel from now on closes it. Over a transport that
   * reports its close, the session's place is held until it does.
   */
  public void opened(Transport transport) {
    this.transport = transport;
    if (transport instanceof ReportsClose) {
      holds = 2;
      closeHold = 1;
      try {
        ((ReportsClose) transport).whenClosed(this::connectionClosed);
      } catch (RuntimeException | Error e) {
        // Not watched: the task's end frees the place, as over a transport that does not report;
        // a watcher the transport kept anyway then finds the close's hold released.
        if (CLOSE_HOLD.compareAndSet(this, 1, 0)) {
          HOLDS.decrementAndGet(this);
        }
        throw e;
      }
    }
    // After the close's watch (review s15 risk 7): whatever this meets, the place goes back at the
    // task's end all the same, and the close is watched.
    ConnectWindow.Slot s = slot;
    if (s != null && transport instanceof ReportsArrival) {
      // Heard from, the place goes back at once, on the thread that took the bytes; else at the task's end.
      try {
        ((ReportsArrival) transport).whenHeardFrom(s);
      } catch (IllegalStateException e) {
        // Someone else watches this transport's first arrival: the place goes back at the task's end.
      }
    }
    if (cancelled) {
      transport.close();
    }
  }

  /**
   * What frees this session's place in the run when its connection's close is reported after
   * its task ended: on the thread that reports it (a library's I/O thread, or whichever closed
   * it). Set before the session starts.
   */
  public void whenFreedByClose(Runnable freed) {
    this.freedByClose = freed;
  }

  /**
   * The session's task has ended (the session frame has closed its transport), on the session's
   * own thread: true if that frees its place, false if its connection's close is still to be
   * reported (that report frees it then). Allocates nothing.
   */
  public final boolean taskEnded() {
    return HOLDS.decrementAndGet(this) == 0;
  }

  /**
   * The session frame's close of the transport threw (not for want of heap): its close may never
   * be reported, so the place is held by the task alone from now on, as over a transport that
   * does not report its close.
   */
  public void closeFailed() {
    if (CLOSE_HOLD.compareAndSet(this, 1, 0)) {
      HOLDS.decrementAndGet(this);
    }
  }

  private void connectionClosed() {
    if (CLOSE_HOLD.compareAndSet(this, 1, 0) && HOLDS.decrementAndGet(this) == 0) {
      freedByClose();
    }
  }

  /**
   * The connection's close, reported after the task ended, has freed this session's place; runs
   * on the reporting thread. By default runs what {@link #whenFreedByClose} set.
   */
  protected void freedByClose() {
    Runnable freed = freedByClose;
    if (freed != null) {
      freed.run();
    }
  }

  /**
   * The session was handed to its thread or fiber (THREADS, VIRTUAL_THREADS: by the run's thread,
   * with its permit; CONTINUATIONS: at its admission), or its frame has begun (SYNC): if the run
   * gives up on it, it was left behind, not merely never started.
   */
  public void started() {
    started = true;
  }

  /**
   * Whether the session must not connect: it was cancelled, or the run gave up on it
   * ({@link #leftBehind}), before its frame came to the connect.
   */
  public boolean mustNotConnect() {
    return cancelled || sealed;
  }

  /**
   * Whether the run this session belongs to has given up on it ({@link #leftBehind}): what it
   * meets from now on is not the run's (its frame reports no heap exhaustion, see SessionFrame).
   */
  public boolean isLeftBehind() {
    return sealed;
  }

  /**
   * The session frame's close of {@code transport} ran out of heap: the session keeps it (again)
   * for the aborted run's cancels to close, even if a cancel that came while that close was under
   * way, finding it under way, did nothing and let the transport go (a finished session's cancel
   * forgets the transport it closed). Allocates nothing.
   */
  public void closeRanOutOfHeap(Transport transport) {
    synchronized (this) {
      this.transport = transport;
      keptAfterFailedClose++;
      // The latest failed close decides: this one is left to the cancels.
      cancelCloseFailedOtherwise = false;
    }
  }

  /**
   * How many times a close of this session's transport ran out of heap and kept it again: read
   * by the session frame before its close, and handed to {@link #released(int)} after it.
   */
  public int closesKept() {
    return keptAfterFailedClose;
  }

  /**
   * The session has ended and closed its transport: forget the transport, so that a finished
   * session, which the run keeps for its outcome, holds none of its connection's buffers. Unless
   * a close has run out of heap and kept it since {@code keptBefore} was read (see
   * {@link #closesKept}): the session frame's close returns at once, doing nothing, when it finds
   * a cancel's close under way, and if that close then fails, forgetting the transport would
   * leave the connection open, its close unreported, and the session's place held.
   */
  public void released(int keptBefore) {
    synchronized (this) {
      if (keptAfterFailedClose == keptBefore) {
        this.transport = null;
      } else if (cancelCloseFailedOtherwise) {
        // The cancel's close, under way as the frame's came, threw (not for want of heap): nothing
        // closes it again, so its close may never be reported. The task's end frees the place, as
        // when the frame's own close throws so.
        this.transport = null;
        closeFailed();
      }
    }
  }

  /**
   * A cancel's close of this session's transport threw, not for want of heap: its close may never be
   * reported. If the session frame has let the transport go (its own close found this one under way),
   * the task's end frees the place from now on, as when the frame's own close throws so; else the
   * frame is told, through {@link #released(int)}, or closes the transport itself later (a close
   * that threw can be made again). Not at once in every case: while the task runs, its connection's
   * close still holds the place, and the frame's own close may yet report it.
   */
  private void cancelCloseThrew() {
    synchronized (this) {
      if (transport == null) {
        closeFailed();
      } else {
        cancelCloseFailedOtherwise = true;
        keptAfterFailedClose++;
      }
    }
  }

  /**
   * The session's task returned {@code value}: its outcome, unless it has one already (first
   * writer wins, under this context's monitor, against {@link #failed} and {@link #leftBehind}).
   */
  public void succeeded(Object value) {
    synchronized (this) {
      if (!finished) {
        this.value = value;
        finished = true;
      }
    }
  }

  /** The error that ended this session because a suspend was swallowed, or null. */
  public io.weft.continuations.NotInstrumentedError swallowError() {
    return null;
  }

  /** True when the task's transport gets the run-time check in front of it (continuations). */
  public boolean checked() {
    return this instanceof Fiber;
  }

  /**
   * Replaces whatever was recorded: the session is known to have gone wrong. Not once the run
   * has given up on it ({@link #leftBehind}): the outcome the run returned stays.
   */
  public void failedHard(Throwable failure) {
    synchronized (this) {
      if (!sealed) {
        this.value = null;
        this.failure = failure;
        finished = true;
      }
    }
  }

  /** The session ended with {@code failure}: its outcome, unless it has one already (first writer wins). */
  public void failed(Throwable failure) {
    synchronized (this) {
      if (!finished) {
        this.failure = failure;
        finished = true;
      }
    }
  }

  /**
   * Adds {@code late}, met after the session's outcome was recorded (its close failed), to the
   * session's failure as a suppressed exception: true if added, false if the session has no
   * failure, its failure is {@code late} itself, or the run has given up on the session
   * ({@link #leftBehind}; the outcome the run returned does not change after it).
   */
  public boolean addToFailure(Throwable late) {
    synchronized (this) {
      if (sealed || failure == null || failure == late) {
        return false;
      }
      failure.addSuppressed(late);
      return true;
    }
  }

  /**
   * The run was aborted and gave up waiting for this session (the runner's close wait after the
   * abort ran out): from now on its outcome is final. If it started and has no outcome yet, it
   * is cancelled with a {@link SessionCancelledException} of its own
   * whose message is {@code message} (or, if the heap has no room for one, with {@code
   * madeAhead}, made with the run), whatever its thread or fiber does later; one never started
   * keeps its plain cancel: nothing of it was left behind. First writer wins against the
   * session's own outcome, under this context's monitor.
   */
  public void leftBehind(String message, Throwable madeAhead) {
    synchronized (this) {
      sealed = true;
      if (started && !finished) {
        Throwable why;
        try {
          why = new SessionCancelledException(message);
        } catch (OutOfMemoryError e) {
          why = madeAhead;
        }
        cancelled = true;
        this.failure = why;
        finished = true;
      }
    }
  }

  public boolean isFinished() {
    return finished;
  }

  public boolean isCancelled() {
    return cancelled;
  }

  public Object value() {
    return value;
  }

  public Throwable failure() {
    return failure;
  }

  /**
   * Marks the session cancelled and closes its transport, if open, from any thread. A session
   * that has already ended keeps its outcome: the cancel came after it. But a transport it still
   * holds is closed: the session frame forgets its transport once it has closed it, and keeps
   * it when that close failed for want of heap, which leaves the connection's close unreported
   * and the session's place in the run held (an aborted run cancels again and again while it
   * waits for its sessions). While one cancel is in the transport's close, another does not
   * close it too (it returns at once): a close that never returns stops one canceller only.
   */
  public void cancel() {
    // Written once, as in Fiber.cancelWait: an aborted run's re-cancels pass every 50 ms.
    if (!cancelled && !finished) {
      cancelled = true;
    }
    if (!CANCEL_CLOSING.compareAndSet(this, 0, 1)) {
      return;
    }
    try {
      int kept = keptAfterFailedClose;
      Transport t = transport;
      if (t != null) {
        try {
          t.close();
        } catch (OutOfMemoryError e) {
          // Failed part of the way, the connection perhaps left open: kept for the next pass, even
          // if the session's own close, finding this one under way, returned and let it go.
          closeRanOutOfHeap(t);
          throw e;
        } catch (RuntimeException e) {
          cancelCloseThrew();
          throw e;
        }
        if (finished) {
          // Closed this time: a finished session holds none of its buffers. Unless the session's
          // own close, under way while this one came (which then did nothing), has since failed
          // for want of heap and kept the transport again: forgetting it now would leave it open.
          synchronized (this) {
            if (keptAfterFailedClose == kept) {
              transport = null;
            }
          }
        }
      }
    } finally {
      cancelClosing = 0;
    }
  }
}
