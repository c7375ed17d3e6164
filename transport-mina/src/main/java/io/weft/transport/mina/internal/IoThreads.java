package io.weft.transport.mina.internal;

import io.weft.transport.BlockingOperationException;
import io.weft.transport.NonBlockingThread;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.future.WriteFuture;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSession;

/**
 * Tells whether the current thread is one that MINA needs to complete I/O, so that blocking on it
 * would deadlock.
 *
 * <p>Two signals: the thread was made by a Weft connector's thread factory (a
 * {@link MinaIoThread}: every I/O processor, connect and pipe thread of the connector), or it is
 * inside one of Weft's own MINA callbacks (a mark set by {@link SessionStateHandler}; the in-VM
 * pipe runs its callbacks on whichever thread wrote, which may be any thread). The in-VM pipe's
 * writer is marked only for the duration of the callback, so a client that has just written from
 * its own thread is not mistaken for an I/O thread when it then waits. On a {@link MinaIoThread}
 * the mark is a field; only other threads need a thread-local, and only once a pipe callback has
 * ever run on one.
 */
public final class IoThreads {
  private static final ThreadLocal<Boolean> IN_CALLBACK = new ThreadLocal<>();
  /** Set once a callback has run on a thread that is not a MinaIoThread: the pipe's writers. */
  private static volatile boolean foreignCallbacks;

  private IoThreads() {}

  /** Marks the current thread as running a MINA callback; returns the previous mark. */
  static boolean enter() {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      return ((MinaIoThread) t).callbacks++ > 0;
    }
    if (!foreignCallbacks) {
      foreignCallbacks = true;
    }
    boolean previous = IN_CALLBACK.get() == Boolean.TRUE;
    if (!previous) {
      IN_CALLBACK.set(Boolean.TRUE);
    }
    return previous;
  }

  /**
   * As {@link #enter()}, for the delivery of {@code session}'s input: on a connector's own
   * thread it also records the session.
   */
  static boolean enterReceiving(IoSession session) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      io.receiving = session;
      return io.callbacks++ > 0;
    }
    return enter();
  }

  /** Restores what {@link #enterReceiving} changed. */
  static void exitReceiving(boolean previous) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      io.receiving = null;
      io.callbacks--;
      return;
    }
    exit(previous);
  }

  /** Restores the mark {@link #enter()} returned (callbacks nest on the in-VM pipe). */
  static void exit(boolean previous) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      ((MinaIoThread) t).callbacks--;
      return;
    }
    if (!previous) {
      IN_CALLBACK.remove();
    }
  }

  /**
   * True when blocking on this thread for MINA I/O could never end, or must not happen: any
   * transport's I/O thread (a {@link NonBlockingThread}, such as another transport's event loop,
   * which every session it serves depends on), or a thread inside a MINA callback.
   */
  public static boolean isIoThread() {
    return Thread.currentThread() instanceof NonBlockingThread || inForeignCallback();
  }

  /** True on a thread that is not a connector's own but runs a Weft MINA callback now. */
  private static boolean inForeignCallback() {
    return foreignCallbacks && IN_CALLBACK.get() == Boolean.TRUE;
  }

  /**
   * Throws at once if the current thread is a MINA I/O thread; MINA's own check would fire
   * only after five seconds.
   *
   * @throws BlockingOperationException naming the thread and what was about to wait
   */
  public static void checkNotIoThread(String what) {
    if (isIoThread()) {
      throw refused(what);
    }
  }

  /**
   * The check of a wait that suspends a continuation where it can and blocks where it cannot:
   * on a connector's own thread it may wait only inside a session the thread runs (the wait
   * suspends it); a pipe callback on any other thread may never wait. Fields only, no
   * thread-local, on a connector's thread.
   *
   * @throws BlockingOperationException where the wait would block an I/O thread
   */
  public static void checkMaySuspend(String what) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      if (!((MinaIoThread) t).isRunningSession()) {
        throw refused(what);
      }
    } else if (inForeignCallback()) {
      throw refused(what);
    }
  }

  private static BlockingOperationException refused(String what) {
    Thread t = Thread.currentThread();
    String kind = t instanceof MinaIoThread || !(t instanceof NonBlockingThread) ? "MINA I/O thread " : "I/O thread ";
    return new BlockingOperationException("refusing to wait for " + what + " on " + kind + t.getName()
        + ": the wait could only end by work this same thread would have to do (deadlock)."
        + " Use a listener, or hand the work to another thread.");
  }

  /**
   * Writes the first {@code length} bytes of {@code src} to {@code session}'s socket at once when
   * the current thread is the session's own I/O thread delivering its input (or completing its
   * connect, see {@link #wakeConnected}) and nothing is queued
   * before them (see {@link NioProcessor#writeNow}); returns how many went, 0 when none could.
   */
  public static int writeNow(IoSession session, byte[] src, int length) {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread)) {
      return 0;
    }
    MinaIoThread io = (MinaIoThread) t;
    NioProcessor loop = io.loop;
    if (!io.serves(session) || loop == null || !(session instanceof NioSession)) {
      return 0;
    }
    return loop.writeNow((NioSession) session, src, length);
  }

  /**
   * The processor whose loop the current thread runs now, inside one of that loop's callbacks
   * (delivering a session's input, or completing a session's connect), or null elsewhere: on
   * another thread, or on a connector's thread between loops (MINA's threads are pooled, and a
   * thread that served a processor may later serve another, or MINA's connector).
   */
  public static NioProcessor runningLoop() {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread)) {
      return null;
    }
    MinaIoThread io = (MinaIoThread) t;
    return io.receiving != null || io.opening != null ? io.loop : null;
  }

  /**
   * Runs {@code wake}, the wake-up of a wait for {@code connect}. Where MINA completes the connect
   * on the new session's own processor thread, inside its adding of the session (see
   * {@link NioProcessor#init}), the continuation resumed here is, for {@link #writeNow}, served by
   * this thread as if it delivered the session's input: its first request goes to the socket at
   * once rather than through MINA's write queue, the processor's flush and one more suspend on the
   * write's future. Sound for the same reasons: this thread runs the only loop that flushes the
   * session, so nothing else writes its socket meanwhile, and {@link NioProcessor#writeNow} still
   * writes only with nothing queued before, no filter and an open session. Only writes change:
   * a close here is MINA's own (see {@link #close}), not the one made inside a delivery.
   */
  public static void wakeConnected(ConnectFuture connect, Runnable wake) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread && connect.isConnected()) {
      MinaIoThread io = (MinaIoThread) t;
      IoSession session = connect.getSession();
      if (io.adding == session && io.opening == null) {
        io.adding = null;
        io.opening = session;
        try {
          wake.run();
        } finally {
          io.opening = null;
        }
        return;
      }
    }
    wake.run();
  }

  /**
   * Closes {@code session}. Closed from a connector's own thread while it delivers that session's
   * input (a continuation resumed by its reply that ends there), the socket is closed at once
   * (see {@link NioProcessor#closeHere}); anywhere else MINA closes it in its processor's next
   * turn, as {@link IoSession#closeNow()} always does.
   */
  public static void close(IoSession session) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread) {
      MinaIoThread io = (MinaIoThread) t;
      NioProcessor loop = io.loop;
      if (io.receiving == session && loop != null && session instanceof NioSession
          && loop.closeHere((NioSession) session)) {
        return;
      }
    }
    session.closeNow();
  }

  /**
   * Hands {@code message} to MINA for {@code session}. Written from a connector's own thread, a
   * processor that is delivering input on that thread skips waking its selector: it flushes in
   * the same turn of its loop anyway (see {@link NioProcessor}).
   */
  public static WriteFuture write(IoSession session, Object message) {
    Thread t = Thread.currentThread();
    if (!(t instanceof MinaIoThread)) {
      return session.write(message);
    }
    MinaIoThread io = (MinaIoThread) t;
    io.writing = true;
    try {
      return session.write(message);
    } finally {
      io.writing = false;
    }
  }
}
