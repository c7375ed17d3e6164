package io.weft.continuations.spi;

import io.weft.transport.spi.Deadlines;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** {@code Suspend.await} on an ordinary thread: the thread blocks on a latch. */
final class BlockingWait {
  private BlockingWait() {}

  static boolean await(WaitRegistration registration, long timeoutNanos)
      throws InterruptedIOException {
    CountDownLatch latch = new CountDownLatch(1);
    registration.register(latch::countDown);
    if (latch.getCount() == 0L) {
      return true;
    }
    try {
      if (timeoutNanos == Deadlines.FOREVER) {
        latch.await();
        return true;
      }
      return latch.await(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException ioe = new InterruptedIOException("interrupted while waiting");
      ioe.initCause(e);
      throw ioe;
    }
  }
}
