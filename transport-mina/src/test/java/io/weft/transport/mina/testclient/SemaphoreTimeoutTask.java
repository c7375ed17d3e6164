package io.weft.transport.mina.testclient;

import io.weft.continuations.SessionSemaphore;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Waits for a permit of a semaphore that has none, for at most the given time; plain client code. */
public final class SemaphoreTimeoutTask implements SessionTask<String> {
  private final SessionSemaphore semaphore;
  private final long timeoutNanos;

  public SemaphoreTimeoutTask(SessionSemaphore semaphore, long timeoutNanos) {
    this.semaphore = semaphore;
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    return semaphore.acquire(timeoutNanos) ? "acquired" : "timed out";
  }
}
