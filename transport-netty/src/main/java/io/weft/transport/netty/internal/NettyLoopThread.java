package io.weft.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
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
  static final int READ_BYTES = AdaptiveRecvByteBufAllocator.DEFAULT_MAXIMUM;

  /** Makes the read buffer: direct, unpooled, untracked (the thread keeps it for its life). */
  private static final ByteBufAllocator READ_BUFFERS = new UnpooledByteBufAllocator(true, true);

  /** What this thread makes its read buffer with: {@link #READ_BUFFERS}, or a test's. */
  private final ByteBufAllocator readBuffers;

  /** Touched only by this thread. */
  private boolean runningSession;
  /** Touched only by this thread: the read buffer, made at the first read; this thread holds one reference. */
  private ByteBuf readBuffer;
  /**
   * Touched only by this thread: its read buffer could not be made (no direct memory). Never tried
   * again: each try can stall the loop (the JDK's direct allocation runs a GC and sleeps up to about
   * half a second before it gives up), so the thread's reads take pooled buffers for good.
   */
  private boolean readBufferFailed;
  /** Touched only by this thread: how many reads {@link #readBuffer} served. */
  private long readBufferUses;

  NettyLoopThread(Runnable task, String name) {
    this(task, name, READ_BUFFERS);
  }

  /** As the other, with the allocator the read buffer is made with: for tests (one that fails). */
  NettyLoopThread(Runnable task, String name, ByteBufAllocator readBuffers) {
    super(task, name);
    this.readBuffers = readBuffers;
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
   * caller takes a pooled buffer) when anyone but this thread still holds a reference to it (the
   * reference count says so), when {@code guess} is larger than {@link #READ_BYTES}, and when it
   * could not be made (no memory: then never tried again). The count sees only those who took a
   * reference: an un-retained view ({@code slice()}, {@code duplicate()}, a composite's component)
   * does not show in it and would read the next read's bytes, which is why only a channel whose
   * pipeline is Weft's own handler alone, which copies the bytes and keeps nothing, reads into
   * this buffer ({@link LingerlessSocketChannel.ReadHandle}). Call only on this thread.
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
      if (readBufferFailed) {
        return null;
      }
      try {
        buf = readBuffers.directBuffer(READ_BYTES, READ_BYTES);
      } catch (OutOfMemoryError e) {
        readBufferFailed = true;
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

  /**
   * Runs the loop, then releases the read buffer. That is after Netty has marked the loop
   * terminated (its termination future done, {@link EventLoops#threads}'s {@code ended} told), so a
   * caller waiting for the group's shutdown may go on a moment before the 64 KiB is freed.
   */
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
