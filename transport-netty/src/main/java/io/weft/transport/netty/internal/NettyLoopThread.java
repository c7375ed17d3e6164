package io.weft.transport.netty.internal;

import io.netty.util.concurrent.FastThreadLocalThread;
import io.weft.continuations.spi.LoopThread;

/**
 * An event-loop thread of a Weft Netty connector: a {@link FastThreadLocalThread}, so that Netty's
 * own per-thread state (the pooled allocator's cache, the recycler, its internal thread-local
 * map) is a field of the thread rather than a {@link ThreadLocal} lookup, and a {@link LoopThread},
 * so that the continuation runtime may resume a session right on the thread whose read delivered
 * its bytes. Made by {@link EventLoops#threads}; lives as long as its event-loop group.
 */
final class NettyLoopThread extends FastThreadLocalThread implements LoopThread {
  /** Touched only by this thread. */
  private boolean runningSession;

  NettyLoopThread(Runnable task, String name) {
    super(task, name);
  }

  @Override
  public boolean enterSession() {
    if (runningSession) {
      return false;
    }
    runningSession = true;
    return true;
  }

  @Override
  public boolean isRunningSession() {
    return runningSession;
  }

  @Override
  public void exitSession() {
    runningSession = false;
  }

  @Override
  public void run() {
    LoopThread.runLoop(this, super::run);
  }
}
