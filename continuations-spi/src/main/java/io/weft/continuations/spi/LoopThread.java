package io.weft.continuations.spi;

import io.weft.transport.NonBlockingThread;
import org.apache.commons.javaflow.api.Continuation;

/**
 * A transport's I/O thread that may also run the sessions its events wake, right where the bytes
 * arrive, as Netty's event loop runs its handlers: no hand-off to another thread. The runtime asks
 * {@link #current()} when a wait ends whether it may resume the session in place.
 *
 * <p>An interface, so that a transport's thread can be the class its I/O library wants too (a
 * Netty event loop a {@code FastThreadLocalThread}, whose own thread-locals are then fields).
 * {@link EventLoopThread} is a ready-made implementation for a transport with no such need. The
 * transport's thread factory makes its I/O threads of a class that implements this and:
 * <ul>
 *   <li>keeps, in a plain field that only the thread itself touches, whether it runs a session
 *       now ({@link #enterSession()}, {@link #isRunningSession()}, {@link #exitSession()}): a
 *       session runs on such a thread only when the thread is not already running one, so one
 *       session's code never nests inside another's;
 *   <li>runs its whole I/O loop through {@link #runLoop}, the body of an outer continuation of
 *       its own that never suspends: a continuation engine's stack recorder is then always
 *       registered on the thread, and resuming a session swaps the value of the engine's
 *       thread-local instead of adding and removing its entry on every resume;
 *   <li>never blocks: it is a {@link NonBlockingThread}, and blocking code refuses to wait on it
 *       with {@link io.weft.transport.BlockingOperationException}.
 * </ul>
 * An I/O thread lives as long as its transport's connector.
 */
public interface LoopThread extends NonBlockingThread {

  /**
   * The current thread, if it is a transport's loop thread.
   *
   * @return the current thread as a loop thread, or null if it is not one
   */
  static LoopThread current() {
    Thread t = Thread.currentThread();
    return t instanceof LoopThread ? (LoopThread) t : null;
  }

  /**
   * Whether the current thread is a transport's loop thread.
   *
   * @return true when the current thread is a loop thread, on which nothing may block
   */
  static boolean inEventLoop() {
    return Thread.currentThread() instanceof LoopThread;
  }

  /**
   * Runs a loop thread's whole I/O loop inside the thread's outer continuation (see the class
   * javadoc); a loop thread's {@code run()} calls this once and returns when the loop ends.
   *
   * @param thread the current thread
   * @param loop the thread's I/O loop
   * @throws IllegalStateException if {@code thread} is not the current thread
   */
  static void runLoop(LoopThread thread, Runnable loop) {
    if (thread != Thread.currentThread()) {
      throw new IllegalStateException("runLoop called on " + Thread.currentThread().getName() + ", not on "
          + thread.getName());
    }
    Continuation.startWith(loop, thread, true);
  }

  /**
   * The thread's name, for messages ({@link Thread#getName()}).
   *
   * @return the thread's name
   */
  String getName();

  /**
   * Claims this thread to run one session now; false if it already runs one (the wake-up came
   * from inside that session), and the session must then go to the runtime's workers. Call only
   * on this thread; pair with {@link #exitSession()}.
   *
   * @return true if this thread now runs the session, false if it already ran one
   */
  boolean enterSession();

  /**
   * Whether this thread runs a session now; read on this thread only.
   *
   * @return true between {@link #enterSession()} and {@link #exitSession()}
   */
  boolean isRunningSession();

  /** Ends what {@link #enterSession()} began; call only on this thread. */
  void exitSession();
}
