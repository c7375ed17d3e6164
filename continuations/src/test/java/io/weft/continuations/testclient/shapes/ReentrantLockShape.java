package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;

/** Holds a java.util.concurrent lock across a read: it belongs to the worker, not the session. */
public final class ReentrantLockShape extends Shape {
  private final ReentrantLock lock = new ReentrantLock();
  private int inside;

  public ReentrantLockShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    lock.lock();
    try {
      int others = inside++;
      String got = echo(t, "locked " + index);
      inside--;
      return got + (others == 0 ? " alone" : " with " + others + " others");
    } finally {
      lock.unlock();
    }
  }
}
