package io.weft.transport.mina.internal;

/**
 * Tells whether the current thread is one that MINA needs to complete I/O, so that waiting on
 * it would deadlock.
 *
 * <p>Two signals: the thread is inside one of Weft's own MINA callbacks (a flag set by
 * {@link SessionStateHandler}, which also covers the in-VM pipe, whose callbacks run on
 * whichever thread wrote), or its name is one that MINA gives its NIO processor and acceptor
 * threads while they run. The in-VM pipe's writer is flagged only for the duration of the
 * callback, so a client that has just written from its own thread is not mistaken for an I/O
 * thread when it then waits.
 */
public final class IoThreads {
  private static final ThreadLocal<Boolean> IN_CALLBACK = new ThreadLocal<>();
  private static final String[] MINA_THREAD_PREFIXES = {
    "NioProcessor-", "NioSocketConnector-", "NioSocketAcceptor-", "NioDatagramConnector-",
    "NioDatagramAcceptor-",
  };

  private IoThreads() {}

  /** Marks the current thread as running a MINA callback; returns the previous mark. */
  static boolean enter() {
    boolean previous = IN_CALLBACK.get() == Boolean.TRUE;
    if (!previous) {
      IN_CALLBACK.set(Boolean.TRUE);
    }
    return previous;
  }

  /** Restores the mark {@link #enter()} returned (callbacks nest on the in-VM pipe). */
  static void exit(boolean previous) {
    if (!previous) {
      IN_CALLBACK.remove();
    }
  }

  /** True when waiting on this thread for MINA I/O could never end. */
  public static boolean isIoThread() {
    if (IN_CALLBACK.get() == Boolean.TRUE) {
      return true;
    }
    String name = Thread.currentThread().getName();
    for (String prefix : MINA_THREAD_PREFIXES) {
      if (name.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Throws at once if the current thread is a MINA I/O thread; MINA's own check would fire
   * only after five seconds.
   *
   * @throws IllegalStateException naming the thread and what was about to wait
   */
  public static void checkNotIoThread(String what) {
    if (isIoThread()) {
      throw new IllegalStateException("refusing to wait for " + what + " on MINA I/O thread "
          + Thread.currentThread().getName()
          + ": the wait could only end by work this same thread would have to do (deadlock)."
          + " Use a listener, or hand the work to another thread.");
    }
  }
}
