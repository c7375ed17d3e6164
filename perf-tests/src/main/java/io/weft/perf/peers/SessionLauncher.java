package io.weft.perf.peers;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hand-written clients' session bookkeeping: hands out session numbers (N at the start,
 * then one for each session that ends, so N stay in flight until none are left), counts the
 * ended sessions and keeps the failed ones' count and what they failed with. Thread-safe.
 */
final class SessionLauncher {
  private final int total;
  private final AtomicInteger next = new AtomicInteger();
  private final CountDownLatch ended;
  private final AtomicInteger failed = new AtomicInteger();
  private final FailureKinds failures = new FailureKinds();

  SessionLauncher(int total) {
    this.total = total;
    this.ended = new CountDownLatch(total);
  }

  /** The next session's number, or -1 when every session has been handed out. */
  int nextSession() {
    int n = next.getAndIncrement();
    return n < total ? n : -1;
  }

  /** Session {@code session} ended; {@code failure} is null if it did all its round trips. */
  void ended(int session, Throwable failure) {
    if (failure != null) {
      failed.incrementAndGet();
      failures.add(session, failure);
    }
    ended.countDown();
  }

  /**
   * Waits until every session has ended; false if {@code timeout} ran out first. Sessions never
   * started then count as failed.
   */
  boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    if (ended.await(timeout, unit)) {
      return true;
    }
    long missing = ended.getCount();
    failed.addAndGet((int) missing);
    failures.addUnended(missing, "still running after " + unit.toMillis(timeout) + " ms");
    return false;
  }

  int failed() {
    return failed.get();
  }

  /** What the failed sessions failed with, how many of each; null if none failed. */
  String failureSummary() {
    return failures.summary();
  }
}
