package io.weft.transport.netty.internal;

import io.weft.continuations.spi.LoopThread;
import io.weft.transport.BlockingOperationException;
import io.weft.transport.spi.HeapExhaustion;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The event-loop threads of a Weft Netty connector, and the checks that keep blocking waits off
 * them. A connector's {@code NioEventLoopGroup} makes its threads through {@link #threads}: each
 * is a {@link NettyLoopThread}, both Netty's {@code FastThreadLocalThread} and the runtime's
 * {@link LoopThread}, so the continuation runtime may resume a session right on the thread whose
 * read delivered its bytes, and blocking code knows the thread by its type (never by its name)
 * and refuses to block it. Not API.
 */
public final class EventLoops {
  /** For the report; not a constant, so that its literal is made as the class loads, not when the heap is full. */
  private static final String DIES;

  static {
    DIES = "a Netty event loop, which dies of it";
  }

  private EventLoops() {}

  /** A factory of daemon event-loop threads named {@code prefix1}, {@code prefix2}, ... */
  public static ThreadFactory threads(String prefix) {
    return threads(prefix, thread -> { });
  }

  /**
   * As {@link #threads(String)}, and {@code ended} is told, on the thread, as each thread's loop
   * ends, however it ends: at its group's shutdown, or dead of an error, which Netty catches
   * and logs ("Unexpected exception from an event executor") and then ends the loop, its
   * channels left without a thread to serve them.
   */
  public static ThreadFactory threads(String prefix, Consumer<Thread> ended) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Runnable reporting = () -> {
        try {
          runnable.run();
        } catch (RuntimeException | Error e) {
          // The loop ends: if the heap ran out, so must the runs that wait on it.
          HeapExhaustion.report(e, DIES);
          throw e;
        } finally {
          ended.accept(Thread.currentThread());
        }
      };
      Thread thread = new NettyLoopThread(reporting, prefix + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * How many reads of its channels the current event-loop thread served from its own read buffer
   * (see {@link LingerlessSocketChannel}); for tests and diagnostics.
   *
   * @return the count, or -1 off a Weft Netty event loop
   */
  public static long ownBufferReads() {
    Thread t = Thread.currentThread();
    return t instanceof NettyLoopThread ? ((NettyLoopThread) t).readBufferUses() : -1L;
  }

  /** True on any transport's event-loop thread, where nothing may block. */
  public static boolean inEventLoop() {
    return LoopThread.inEventLoop();
  }

  /**
   * Throws at once on an event-loop thread: a blocking wait there could only end by work that
   * same thread would have to do.
   *
   * @throws BlockingOperationException naming the thread and what was about to wait
   */
  public static void checkMayBlock(String what) {
    if (LoopThread.inEventLoop()) {
      throw refused(what);
    }
  }

  /**
   * The check of a wait that suspends a continuation where it can and blocks where it cannot: on
   * an event-loop thread it may wait only inside a session the thread runs (the wait then
   * suspends the session and frees the thread).
   *
   * @throws BlockingOperationException where the wait would block an event-loop thread
   */
  public static void checkMaySuspend(String what) {
    LoopThread loop = LoopThread.current();
    if (loop != null && !loop.isRunningSession()) {
      throw refused(what);
    }
  }

  private static BlockingOperationException refused(String what) {
    return new BlockingOperationException("refusing to wait for " + what + " on Netty event loop thread "
        + Thread.currentThread().getName()
        + ": the wait could only end by work this same thread would have to do (deadlock)."
        + " Use a suspending connector, or run the session on worker threads.");
  }
}
