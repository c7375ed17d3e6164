package io.weft.continuations.testclient;

import io.weft.continuations.SessionSemaphore;
import io.weft.testsupport.MovingTicker;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Waits {@code timeoutNanos} for a permit that never comes, on a clock that reaches the wait's
 * deadline right after the semaphore has worked out what is left of the wait (its second reading:
 * the first makes the deadline), before the wait is armed.
 */
public final class TimedAcquireTask implements SessionTask<String> {
  private final SessionSemaphore semaphore;
  private final MovingTicker clock;
  private final long timeoutNanos;

  public TimedAcquireTask(SessionSemaphore semaphore, MovingTicker clock, Long timeoutNanos) {
    this.semaphore = semaphore;
    this.clock = clock;
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    // The clock stands still until the move, so the semaphore's deadline is this reading's.
    long deadline = clock.nanoTime() + timeoutNanos;
    clock.moveAfterReads(2, deadline);
    return semaphore.acquire(timeoutNanos) ? "acquired" : "timed out";
  }
}
