package io.weft.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.weft.continuations.spi.LoopThread;

/**
 * An event-loop thread of a Weft Netty connector: a {@link FastThreadLocalThread}, so that Netty's
 * own per-thread state (the pooled allocator's cache, the recycler, its internal thread-local
 * map) is a field of the thread rather than a {@link ThreadLocal} lookup, and a {@link LoopThread},
 * so that the continuation runtime may resume a session right on the thread whose read delivered
 * its bytes. Made by {@link EventLoops#threads}; lives as long as its event-loop group.
 *
 * <p>It also keeps the one direct buffer that its plaintext Weft channels read the socket into
 * ({@link #readBuffer}), as a MINA processor's thread does: their reads take no pooled buffer.
 */
final class NettyLoopThread extends FastThreadLocalThread implements LoopThread {
  /**
   * The read buffer's size: the most the read loop's adaptive guess asks for (Netty's
   * {@code AdaptiveRecvByteBufAllocator} default maximum); a larger guess takes a pooled buffer.
   */
  static final int READ_BYTES = 64 * 1024;

  /** Makes the read buffer: direct, unpooled, untracked (the thread keeps it for its life). */
  private static final ByteBufAllocator READ_BUFFERS = new UnpooledByteBufAllocator(true, true);

  /** Touched only by this thread. */
  private boolean runningSession;
  /** Touched only by this thread: the read buffer, made at the first read; this thread holds one reference. */
  private ByteBuf readBuffer;
  /** Touched only by this thread: how many reads {@link #readBuffer} served. */
  private long readBufferUses;

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

  /**
   * This thread's read buffer for one read of {@code guess} bytes, with one more reference for
   * whoever reads it, who releases it as any read buffer: its indices set so that exactly
   * {@code guess} bytes are writable, as in the pooled buffer the read loop would take. Null (the
   * caller takes a pooled buffer) when anyone but this thread still holds it (the reference count
   * says so: nothing is reused that someone kept), when {@code guess} is larger than
   * {@link #READ_BYTES}, and when it cannot be made (no memory). Call only on this thread.
   *
   * @param guess the bytes the read may take
   * @return the buffer, or null
   */
  ByteBuf readBuffer(int guess) {
    if (guess > READ_BYTES) {
      return null;
    }
    ByteBuf buf = readBuffer;
    if (buf == null) {
      try {
        buf = READ_BUFFERS.directBuffer(READ_BYTES, READ_BYTES);
      } catch (OutOfMemoryError e) {
        return null;
      }
      readBuffer = buf;
    }
    if (buf.refCnt() != 1) {
      return null;
    }
    int at = READ_BYTES - guess;
    buf.setIndex(at, at);
    readBufferUses++;
    return buf.retain();
  }

  /** How many reads {@link #readBuffer} served; read on this thread. */
  long readBufferUses() {
    return readBufferUses;
  }

  @Override
  public void run() {
    try {
      LoopThread.runLoop(this, super::run);
    } finally {
      ByteBuf buf = readBuffer;
      readBuffer = null;
      if (buf != null && buf.refCnt() > 0) {
        buf.release();
      }
    }
  }
}
