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
 * wakes session 0 to find none, and runs {@code afterSteal} (the test moves its clock there: session 0,
 * woken, runs only once this session has ended, one worker, so it reads the clock after the move,
 * both when it works out the time left and when it arms its timer). Plain client code.
 */
public final class StolenPermitTask implements SessionTask<String> {
  private final SessionSemaphore semaphore;
  private final SessionSemaphore entered;
  private final SessionSemaphore parked;
  private final SessionSemaphore go;
  private final Runnable afterSteal;
  private final long timeoutNanos;

  public StolenPermitTask(SessionSemaphore semaphore, SessionSemaphore entered, SessionSemaphore parked,
      SessionSemaphore go, Runnable afterSteal, long timeoutNanos) {
    this.semaphore = semaphore;
    this.entered = entered;
    this.parked = parked;
    this.go = go;
    this.afterSteal = afterSteal;
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
    afterSteal.run();
    return took ? "stole" : "lost";
  }
}
