package io.weft.transport.mina.internal;

import io.weft.continuations.spi.EventLoopThread;
import java.nio.ByteBuffer;
import org.apache.mina.core.buffer.IoBuffer;

/**
 * A thread of a Weft MINA connector (its I/O processors, its connect or pipe thread), made by the
 * connector's own thread factory so that {@link IoThreads} knows it by its class, never by its
 * name. Keeps, in plain fields that only this thread touches, what would otherwise be a
 * thread-local per callback: whether a Weft callback is running, which processor's loop it runs
 * and whose input it delivers.
 */
public final class MinaIoThread extends EventLoopThread {
  /** Depth of Weft's MINA callbacks running on this thread (they nest on the in-VM pipe). */
  int callbacks;
  /** The processor that last read on this thread: the one whose loop it runs. Null before. */
  NioProcessor loop;
  /**
   * The session whose input this thread delivers now, or null. For a TCP session it was read by
   * {@link #loop}, which flushes after delivering input in the same turn of its loop (see
   * NioProcessor.wakeup and writeNow).
   */
  Object receiving;
  /**
   * The session this processor's thread last registered (NioProcessor.init), until its connect
   * future's listeners run: MINA completes that future on this same thread, a little later in
   * the same call, and {@link IoThreads#wakeConnected} looks for it here. Null once taken.
   */
  Object adding;
  /**
   * The session whose connect completion this thread runs now (the session's own processor,
   * inside MINA's adding of it), or null: its continuation, resumed here, may write inline (see
   * NioProcessor.writeNow), as one resumed by its input may.
   */
  Object opening;
  /** True while a session on this thread hands a write to MINA (see NioProcessor.wakeup). */
  boolean writing;
  /**
   * True while {@link #loop} closes a session with an empty write queue here, on its own thread,
   * inside its loop's processing of ready sessions (NioProcessor.closeHere): MINA's close then
   * only queues the session's removal and wakes the selector, a wake-up that buys nothing, since
   * closeHere has already cancelled the key, closed the channel and reported the end, and the
   * removal only drops a session already closing (see NioProcessor.wakeup).
   */
  boolean closingHere;
  /** The counters this thread counts in {@link #count}, its own slots; null if none. */
  ThreadCounts counts;
  /** Written by this thread only; read, racily, by {@link ThreadCounts} sums. */
  final long[] count = new long[ThreadCounts.SLOTS];

  /**
   * True if this thread may write {@code session}'s bytes to its socket itself: it delivers the
   * session's input or completes its connect, on the session's own processor.
   */
  boolean serves(Object session) {
    return receiving == session || opening == session;
  }

  /** Bytes one direct write or read through this thread's own buffer can carry. */
  static final int DIRECT_BYTES = 16 * 1024;

  private IoBuffer direct;

  /**
   * This thread's direct buffer, cleared: what it writes to a socket, or reads from one, goes
   * to the kernel without NIO's per-thread temporary direct buffer (a thread-local lookup and a
   * copy per call for a heap buffer). Made on first use; lives as long as the thread.
   */
  IoBuffer direct() {
    IoBuffer b = direct;
    if (b == null) {
      b = IoBuffer.wrap(ByteBuffer.allocateDirect(DIRECT_BYTES));
      direct = b;
    }
    b.clear();
    return b;
  }

  public MinaIoThread(Runnable task, String name) {
    super(task, name);
  }

  /**
   * A connector's thread that counts {@code counts}' counters in slots of its own, handing its
   * counts back as it ends.
   *
   * @param task what the thread runs
   * @param name the thread's name
   * @param counts the connector's counters
   */
  public MinaIoThread(Runnable task, String name, ThreadCounts counts) {
    super(task, name);
    counts.adopt(this);
  }

  @Override
  public void run() {
    try {
      super.run();
    } finally {
      ThreadCounts c = counts;
      if (c != null) {
        c.retire(this);
      }
    }
  }
}
