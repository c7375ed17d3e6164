package io.weft.transport.mina.testclient;

import io.weft.continuations.SessionSemaphore;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/**
 * Two sessions on one worker. Session 0 waits for a permit of {@code semaphore} (none free) for at
 * most {@code timeoutNanos}, after releasing {@code entered}. Session 1 waits for {@code entered}
 * (it runs only once session 0 has suspended in its acquire: one worker), releases {@code parked},
 * waits for {@code go}, then gives {@code semaphore} a permit and takes it straight back, which
 * wakes session 0 to find none, and releases {@code stolen}. Plain client code.
 */
public final class StolenPermitTask implements SessionTask<String> {
  private final SessionSemaphore semaphore;
  private final SessionSemaphore entered;
  private final SessionSemaphore parked;
  private final SessionSemaphore go;
  private final SessionSemaphore stolen;
  private final long timeoutNanos;

  public StolenPermitTask(SessionSemaphore semaphore, SessionSemaphore entered, SessionSemaphore parked,
      SessionSemaphore go, SessionSemaphore stolen, long timeoutNanos) {
    this.semaphore = semaphore;
    this.entered = entered;
    this.parked = parked;
    this.go = go;
    this.stolen = stolen;
    this.timeoutNanos = timeoutNanos;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    if (index == 0) {
      entered.release();
      return semaphore.acquire(timeoutNanos) ? "acquired" : "timed out";
    }
    entered.acquire();
    parked.release();
    go.acquire();
    semaphore.release();
    boolean took = semaphore.tryAcquire();
    stolen.release();
    return took ? "stole" : "lost";
  }
}
