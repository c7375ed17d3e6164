package io.weft.protocols.parsing;

import java.lang.management.ManagementFactory;

/** Bytes the current thread allocates while running a piece of code (HotSpot's per-thread counter). */
final class Allocation {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private Allocation() {}

  interface Body {
    void run() throws Exception;
  }

  /** Runs {@code body}, ignoring what it throws, and returns the bytes this thread allocated meanwhile. */
  static long of(Body body) {
    long before = THREADS.getCurrentThreadAllocatedBytes();
    try {
      body.run();
    } catch (Exception | StackOverflowError e) {
      // The outcome is checked by the caller; here only the cost counts.
    }
    return THREADS.getCurrentThreadAllocatedBytes() - before;
  }
}
