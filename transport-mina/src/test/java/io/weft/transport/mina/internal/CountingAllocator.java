package io.weft.transport.mina.internal;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.buffer.SimpleBufferAllocator;

/**
 * MINA's default allocator, counting what it allocates on a Weft MINA I/O thread started after it
 * was made (so a test's own connector's, not one a connector of an earlier test left). A subclass,
 * not a wrapper: every buffer MINA makes sets the global allocator to the one that made it (its
 * constructor calls {@code IoBuffer.setAllocator}), so a wrapper around another allocator would be
 * replaced by that one at the first buffer, and count nothing after.
 */
final class CountingAllocator extends SimpleBufferAllocator {
  private final AtomicInteger onIoThreads = new AtomicInteger();
  private final Set<Thread> earlier = Thread.getAllStackTraces().keySet();

  /** Buffers allocated on I/O threads started after this allocator was made. */
  int onIoThreads() {
    return onIoThreads.get();
  }

  @Override
  public IoBuffer allocate(int capacity, boolean direct) {
    Thread t = Thread.currentThread();
    if (t instanceof MinaIoThread && !earlier.contains(t)) {
      onIoThreads.incrementAndGet();
    }
    return super.allocate(capacity, direct);
  }
}
