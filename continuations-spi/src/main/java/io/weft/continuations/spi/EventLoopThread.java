package io.weft.continuations.spi;

import io.weft.transport.NonBlockingThread;
import org.apache.commons.javaflow.api.Continuation;

/**
 * A transport's I/O thread, as Netty's event loop: it delivers I/O events and may also run the
 * sessions those events wake, right where the bytes arrive, with no hand-off to another thread. A
 * transport makes its I/O threads of this class (through its own thread factory); the runtime
 * asks {@link #current()} when a wait ends whether it may resume the session in place.
 *
 * <p>Rules the runtime keeps: a session runs on such a thread only when the thread is not already
 * running one ({@link #enterSession()}), so one session's code never nests inside another's; and
 * nothing on such a thread may block: it is a {@link NonBlockingThread}.
 *
 * <p>The thread's whole run is the body of an outer continuation of its own, which never
 * suspends. A continuation engine's stack recorder is then always registered on the thread, and
 * resuming a session swaps the value of the engine's thread-local instead of adding and removing
 * its entry on every resume.
 */
public class EventLoopThread extends Thread implements NonBlockingThread {
  /** Touched only by this thread. */
  private boolean runningSession;

  /**
   * Makes an I/O thread; the transport's thread factory calls this.
   *
   * @param task what the thread runs (the transport's I/O loop)
   * @param name the thread's name
   */
  public EventLoopThread(Runnable task, String name) {
    super(task, name);
  }

  /**
   * The current thread, if it is an event-loop thread.
   *
   * @return the current thread as an event-loop thread, or null if it is not one
   */
  public static EventLoopThread current() {
    Thread t = Thread.currentThread();
    return t instanceof EventLoopThread ? (EventLoopThread) t : null;
  }

  /**
   * Whether the current thread is an event-loop thread.
   *
   * @return true when the current thread is an event-loop thread, on which nothing may block
   */
  public static boolean inEventLoop() {
    return Thread.currentThread() instanceof EventLoopThread;
  }

  /**
   * Claims this thread to run one session now; false if it already runs one (the wake-up came
   * from inside that session), and the session must then go to the runtime's workers. Call only
   * on this thread; pair with {@link #exitSession()}.
   *
   * @return true if this thread now runs the session, false if it already ran one
   */
  public final boolean enterSession() {
    if (runningSession) {
      return false;
    }
    runningSession = true;
    return true;
  }

  /**
   * Whether this thread runs a session now; read on this thread only.
   *
   * @return true between {@link #enterSession()} and {@link #exitSession()}
   */
  public final boolean isRunningSession() {
    return runningSession;
  }

  /** Ends what {@link #enterSession()} began. */
  public final void exitSession() {
    runningSession = false;
  }

  @Override
  public void run() {
    Continuation.startWith(super::run, this, true);
  }
}
