package io.weft.continuations.spi;

/**
 * A ready-made {@link LoopThread}: a plain {@link Thread} that a transport's thread factory makes
 * for its I/O threads (or subclasses, to keep per-thread state in fields) when its I/O library
 * needs no thread class of its own. The thread's whole run is its task inside the outer
 * continuation {@link LoopThread#runLoop} starts.
 */
public class EventLoopThread extends Thread implements LoopThread {
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
   * The current thread, if it is any transport's loop thread (not only one of this class).
   *
   * @return the current thread as a loop thread, or null if it is not one
   */
  public static LoopThread current() {
    return LoopThread.current();
  }

  /**
   * Whether the current thread is any transport's loop thread (not only one of this class).
   *
   * @return true when the current thread is a loop thread, on which nothing may block
   */
  public static boolean inEventLoop() {
    return LoopThread.inEventLoop();
  }

  @Override
  public final boolean enterSession() {
    if (runningSession) {
      return false;
    }
    runningSession = true;
    return true;
  }

  @Override
  public final boolean isRunningSession() {
    return runningSession;
  }

  @Override
  public final void exitSession() {
    runningSession = false;
  }

  @Override
  public void run() {
    LoopThread.runLoop(this, super::run);
  }
}
