package io.weft.continuations.testclient.shapes;

import io.weft.continuations.SessionLock;
import io.weft.continuations.SessionSemaphore;
import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Holds a SessionLock across reads, and a permit of a two-permit SessionSemaphore: in every mode
 * no other session is inside the lock, and at most two inside the semaphore.
 */
public final class SessionLockShape extends Shape {
  private final SessionLock lock = new SessionLock();
  private final SessionSemaphore two = new SessionSemaphore(2);
  private int inLock;
  private int inSemaphore;

  public SessionLockShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    String locked;
    lock.lock();
    try {
      int others = inLock++;
      lock.lock();
      try {
        locked = echo(t, "locked " + index) + (others == 0 ? " alone" : " with " + others + " others");
      } finally {
        lock.unlock();
      }
      inLock--;
    } finally {
      lock.unlock();
    }
    two.acquire();
    try {
      int at = ++inSemaphore;
      String got = echo(t, "permit " + index);
      inSemaphore--;
      return locked + "|" + got + (at <= 2 ? " within" : " over") + " the permits";
    } finally {
      two.release();
    }
  }
}
